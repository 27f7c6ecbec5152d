/** An intention to change the domain, handled by exactly one command handler. */
import { BaseMessage } from './base-message.js';

export abstract class BaseCommand extends BaseMessage {}
