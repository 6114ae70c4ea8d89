import { ErrorName } from '../error-catalogue';
import { RelayerError } from './relayer-error';

/** A tenant that asks for unique references submitted one another of its intents has. */
export class ReferenceTakenError extends RelayerError<{ reference: string; intentId: string }> {
  constructor({ reference, intentId }: { reference: string; intentId: string }) {
    super(
      ErrorName.referenceTaken,
      `reference "${reference}" is taken by ${intentId}`,
      { reference, intentId },
      {
        advice:
          'read that intent (it may be this payment, submitted before), or give this one a reference of its own',
      },
    );
  }
}

/** Asked of an intent that has not ended: a redact waits for its end. */
export class IntentStillOpenError extends RelayerError<{ intentId: string; status: string }> {
  constructor({ intentId, status }: { intentId: string; status: string }) {
    super(
      ErrorName.intentStillOpen,
      `intent ${intentId} is still ${status}`,
      { intentId, status },
      {
        advice:
          'redact it once it ends (its workflow keeps the reference until then); cancel or resolve it first if it waits',
      },
    );
  }
}
