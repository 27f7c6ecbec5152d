/** Handles the commands of one aggregate; each command type has exactly one handler method (`@handle`). */
export abstract class BaseCommandHandler {}
