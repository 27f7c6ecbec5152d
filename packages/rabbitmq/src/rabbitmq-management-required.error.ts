/**
 * `groupProgress` through a mark on a RabbitMQ broker without `management_uri`. Over AMQP a
 * process sees only its own unacked deliveries, so "settled" could be claimed while workers are
 * still handling prefetched messages; refusing is the only honest answer.
 */
import { BrokerSettingsError } from '@protean-ts/core';

export class RabbitMQManagementRequiredError extends BrokerSettingsError {
  constructor(brokerName: string) {
    super(
      brokerName,
      'management_uri',
      'is not set, and RabbitMQ cannot report the unacked messages other connections (the workers) hold over AMQP, so whether the group handled everything cannot be told; ' +
        `enable the management plugin (rabbitmq-plugins enable rabbitmq_management) and set brokers.${brokerName}.management_uri, e.g. "http://user:password@host:15672"`,
    );
    this.name = 'RabbitMQManagementRequiredError';
  }
}
