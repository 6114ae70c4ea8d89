import { RelayerError } from './relayer-error';
import { ErrorName } from '../error-catalogue';

/** Why a speed-up cannot be sent now. */
export type SpeedUpProblem =
  | 'not_signed'
  | 'mined'
  | 'nonce_used'
  | 'ended'
  | 'in_review'
  | 'cancelling'
  | 'above_cap'
  | 'past_deadline'
  | 'limit_reached';

const adviceFor: Record<SpeedUpProblem, string> = {
  not_signed: 'its first bid is made when it is signed; ask again once it is `confirming`',
  mined: 'it ends at its next look; nothing is left to speed up',
  nonce_used: 'nothing signed at its nonce can be mined; it ends at its next look',
  ended: 'nothing is left to speed up',
  in_review: 'an operator resolves it there (`relayer review retry|cancel`)',
  cancelling: 'its nonce is being taken back; the relayer outbids the cancel itself when stuck',
  above_cap: 'ask for less, or an operator raises the chain fee caps',
  past_deadline:
    'nothing is signed for it past its validUntil; a cancel still takes its nonce back',
  limit_reached: 'the relayer still outbids it on its own once stuck (SPEED_UPS_MAX)',
};

/** A speed-up refused, writing nothing: `problem` says why, the message gives the figures. */
export class CannotSpeedUpError extends RelayerError<{
  intentId: string;
  status: string;
  problem: SpeedUpProblem;
}> {
  constructor({
    intentId,
    status,
    problem,
    why,
  }: {
    intentId: string;
    status: string;
    problem: SpeedUpProblem;
    why: string;
  }) {
    super(
      ErrorName.cannotSpeedUp,
      `intent ${intentId} is ${status}: ${why}`,
      { intentId, status, problem },
      { advice: adviceFor[problem] },
    );
  }
}
