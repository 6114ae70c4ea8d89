import type { z } from 'zod';
import type { backfillResultSchema, scheduleSchema } from '../../api/schemas/schedules';
import type { scheduleBodySchema } from '../../domain/payment-schedule';
import type { ApiAnswer, ApiTransport } from '../api-transport';

export type ScheduleView = z.infer<typeof scheduleSchema>;
export type ScheduleBody = z.input<typeof scheduleBodySchema>;
export type BackfillView = z.infer<typeof backfillResultSchema>;

const schedulePath = (id: string, action = '') =>
  `/v1/schedules/${encodeURIComponent(id)}${action && `/${action}`}`;

/** Payment schedules (api/routes/schedules.ts). */
export const scheduleRoutes = {
  createSchedule(
    this: ApiTransport,
    body: ScheduleBody,
    idempotencyKey: string,
  ): Promise<ApiAnswer<ScheduleView>> {
    return this.call('POST', '/v1/schedules', {
      body,
      headers: { 'idempotency-key': idempotencyKey },
    });
  },

  async schedules(this: ApiTransport): Promise<ScheduleView[]> {
    return (await this.call<{ schedules: ScheduleView[] }>('GET', '/v1/schedules')).body.schedules;
  },

  async getSchedule(this: ApiTransport, id: string): Promise<ScheduleView> {
    return (await this.call<ScheduleView>('GET', schedulePath(id))).body;
  },

  async pauseSchedule(this: ApiTransport, id: string, note?: string): Promise<ScheduleView> {
    const body = note === undefined ? {} : { note };
    return (await this.call<ScheduleView>('POST', schedulePath(id, 'pause'), { body })).body;
  },

  async resumeSchedule(this: ApiTransport, id: string, note?: string): Promise<ScheduleView> {
    const body = note === undefined ? {} : { note };
    return (await this.call<ScheduleView>('POST', schedulePath(id, 'resume'), { body })).body;
  },

  async backfillSchedule(
    this: ApiTransport,
    id: string,
    range: { from: string; to: string; beforeStart?: boolean },
  ): Promise<BackfillView> {
    return (await this.call<BackfillView>('POST', schedulePath(id, 'backfill'), { body: range }))
      .body;
  },

  async deleteSchedule(this: ApiTransport, id: string): Promise<void> {
    await this.call('DELETE', schedulePath(id));
  },
};
