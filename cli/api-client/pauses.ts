import type { z } from 'zod';
import type { pauseBodySchema, pauseSchema } from '../../api/schemas/pauses';
import { queryString, type ApiAnswer, type ApiTransport } from '../api-transport';

export type PauseView = z.infer<typeof pauseSchema>;

/** Operators' pauses (api/routes/pauses.ts). */
export const pauseRoutes = {
  pause(this: ApiTransport, body: z.input<typeof pauseBodySchema>): Promise<ApiAnswer<PauseView>> {
    return this.call('POST', '/v1/pauses', { body });
  },

  async resume(this: ApiTransport, pauseId: string, note?: string): Promise<PauseView> {
    const path = `/v1/pauses/${encodeURIComponent(pauseId)}/resume`;
    return (await this.call<PauseView>('POST', path, { body: note === undefined ? {} : { note } }))
      .body;
  },

  async pauses(this: ApiTransport, all = false): Promise<PauseView[]> {
    const path = `/v1/pauses${queryString({ all: all ? 'true' : undefined })}`;
    return (await this.call<{ pauses: PauseView[] }>('GET', path)).body.pauses;
  },
};
