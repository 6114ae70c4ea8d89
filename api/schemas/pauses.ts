import { z } from 'zod';
import { PauseScope, type Pause } from '../../domain/pause';
import { tenantIdSchema } from '../../domain/intent-request';

/** Pauses: the body that starts one, its resume, a pause as the API shows it. */

export const pauseBodySchema = z
  .strictObject({
    scope: z
      .enum([PauseScope.relayer, PauseScope.tenant, PauseScope.chain], {
        error: 'scope must be relayer, tenant or chain',
      })
      .describe('what stops: the whole relayer, one tenant (tenantId) or one chain (chainId)'),
    tenantId: tenantIdSchema.optional(),
    chainId: z.number().int().positive({ error: 'chainId must be a positive integer' }).optional(),
    note: z
      .string({ error: 'note is required: why, for whoever resumes it' })
      .max(500)
      .refine((note) => note.trim() !== '', {
        error: 'note is required (not blank): why, for whoever resumes it',
      }),
    refuseAdmission: z
      .boolean()
      .default(false)
      .describe('refuse new intents in it (503 paused) instead of admitting them to wait'),
  })
  .superRefine((body, ctx) => {
    const needs = { relayer: undefined, tenant: 'tenantId', chain: 'chainId' } as const;
    for (const field of ['tenantId', 'chainId'] as const) {
      const wanted = needs[body.scope] === field;
      if (wanted !== (body[field] !== undefined)) {
        ctx.issues.push({
          code: 'custom',
          input: body,
          path: [field],
          message: wanted
            ? `a ${body.scope} pause names its ${field}`
            : `a ${body.scope} pause takes no ${field}`,
        });
      }
    }
  });

export const resumeBodySchema = z
  .strictObject({ note: z.string().max(500).optional() })
  .nullish()
  .describe('why it is resumed (optional)');

export const pauseSchema = z
  .object({
    id: z.string(),
    scope: z.enum([PauseScope.relayer, PauseScope.tenant, PauseScope.chain]),
    target: z.string().describe("the tenant's id or the chain's id; empty for the relayer"),
    note: z.string(),
    refuseAdmission: z.boolean(),
    pausedBy: z.string(),
    pausedAt: z.string(),
    resumedBy: z.string().nullable(),
    resumedAt: z.string().nullable(),
    resumeNote: z.string().nullable(),
    replaces: z
      .string()
      .nullable()
      .optional()
      .describe('the pause in force on other terms that this one ended and replaced (a new pause)'),
  })
  .meta({ id: 'Pause' });

export const pauseListSchema = z.object({ pauses: z.array(pauseSchema) }).meta({ id: 'PauseList' });

export const pauseListQuerySchema = z.strictObject({
  all: z
    .enum(['true', 'false'])
    .optional()
    .describe('true: the resumed pauses too, newest first (their history)'),
});

export const pauseView = (pause: Pause): z.infer<typeof pauseSchema> => ({
  ...pause,
  pausedAt: pause.pausedAt.toISOString(),
  resumedAt: pause.resumedAt?.toISOString() ?? null,
});
