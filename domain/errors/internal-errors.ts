import { RelayerError } from './relayer-error';
import { ErrorName } from '../error-catalogue';

// What goes wrong inside, not because of a request: a node whose answers do not fit together, a
// state the relayer's own code rules out, a wait that ran out.

/** A node's answer contradicts itself or what it said before: another read may answer right. */
export class NodeAnswerUnfitError extends RelayerError<{ problem: string }> {
  constructor({ problem }: { problem: string }) {
    super(
      ErrorName.nodeAnswerUnfit,
      `the node's answer does not fit: ${problem}`,
      { problem },
      {
        advice: 'retried; if it lasts, an endpoint in RPC_URLS serves a chain out of step',
      },
    );
  }
}

/** A state the relayer's own code rules out: a defect. Retried, in case a race made it. */
export class BrokenInvariantError extends RelayerError<{ rule: string }> {
  constructor({ rule }: { rule: string }) {
    super(
      ErrorName.brokenInvariant,
      rule,
      { rule },
      {
        advice: "a defect of the relayer's: report it with this message and the intent's id",
      },
    );
  }
}

/** Something waited on gave no answer in time. */
export class TimedOutError extends RelayerError<{ what: string; afterMs: number }> {
  constructor({ what, afterMs }: { what: string; afterMs: number }) {
    super(ErrorName.timedOut, `${what} after ${afterMs / 1000} s`, { what, afterMs });
  }
}
