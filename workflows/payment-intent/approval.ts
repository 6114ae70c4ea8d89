import type { IntentStatus } from '../../domain/intent';
import { defaultApprovalTtlMs } from '../../domain/intent-timings';
import { approvalGate as gate } from '../approval-gate';
import type { PaymentIntentProgress } from './messages';
import type { PaymentIntentInput } from './input';
import { decideApproval } from './steps';

/**
 * The wait of an intent awaiting approval (its input says so), before its permit and with
 * nothing held (workflows/approval-gate.ts); four eyes are checked by the activity that applies a
 * decision, against the key that submitted it. Undefined for an intent that needs no approval.
 */
export function approvalGate(input: PaymentIntentInput, progress: PaymentIntentProgress) {
  const { intentId, approvalTtlMs = defaultApprovalTtlMs } = input;
  if (!input.awaitingApproval) return undefined;
  return gate<IntentStatus>({
    subject: { kind: 'intent', id: intentId },
    ttlMs: approvalTtlMs,
    statusNow: () => progress.status,
    apply: (decision) => decideApproval({ intentId, ...decision }),
  });
}

export type ApprovalGate = NonNullable<ReturnType<typeof approvalGate>>;
