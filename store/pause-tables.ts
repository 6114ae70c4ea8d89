import type { ColumnType } from 'kysely';
import type { Timestamp } from './column-types';

/** Operators' pauses (domain/pause.ts); resumed ones are kept as their history. */
export interface PausesTable {
  id: string;
  scope: string;
  target: string;
  note: string;
  refuse_admission: number;
  paused_by: string;
  paused_at: Timestamp;
  resumed_by: string | null;
  resumed_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
  resume_note: string | null;
}
