import { defineSignal } from '@temporalio/workflow';

/** Sent by an operator's resume to each intent its pause held back, oldest first. */
export const intentResumedSignal = defineSignal('intentResumed');
