import { isHeldIntentWait, ReasonCode, type Reason } from './reason-codes';

/**
 * The reason an intent closes with. A step that ran out of time while the intent said it waited
 * (a held wait) ends with what it waited for, even when the last attempt failed otherwise (an RPC
 * timeout on a loaded node) or Temporal's timeout carried no last failure.
 */
export function reasonAtClose(said: Reason | null, closing: Reason): Reason {
  if (closing.code !== ReasonCode.stepTimedOut || !said || !isHeldIntentWait(said.code)) {
    return closing;
  }
  return {
    code: said.code,
    text: `still waiting when its time ran out: ${said.text} (${closing.text})`,
  };
}
