import { aiCopySchema } from '@adnet/schemas/ai';
import type { AiCopy, AiUsage } from '@adnet/schemas/ai';
import type { AiConfig } from '@adnet/schemas/config';
import { z } from 'zod';
import { copyProblems, estimateInputTokens } from '../domain/ai-copy.ts';
import type { ChatMessage, CopyLimits, CopyRequest } from '../domain/ai-copy.ts';
import { templateCopy } from '../domain/ai-template.ts';
import { AppError } from '../errors.ts';

export interface CopyResult {
  copy: AiCopy;
  usage: AiUsage;
}

export interface CopyProvider {
  readonly name: 'openai' | 'template';
  /** The most tokens one generation may be billed for; what is reserved before the call. */
  maxUsage(messages: readonly ChatMessage[]): AiUsage;
  generate(req: CopyRequest, messages: ChatMessage[], limits: CopyLimits): Promise<CopyResult>;
}

/** Offline: no network, no tokens. */
export const templateProvider: CopyProvider = {
  name: 'template',
  maxUsage: () => ({ input_tokens: 0, output_tokens: 0 }),
  generate: (req) => Promise.resolve({ copy: templateCopy(req), usage: { input_tokens: 0, output_tokens: 0 } }),
};

// Only the parts of a chat-completions answer this product reads.
const chatResponseSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }) })).min(1),
  usage: z.object({ prompt_tokens: z.number().int().min(0), completion_tokens: z.number().int().min(0) }).optional(),
});

const COPY_JSON_SCHEMA = z.toJSONSchema(aiCopySchema, { io: 'output', target: 'draft-7' });

/** Raised for an answer that arrived but cannot be used; the only failure worth a retry. */
class MalformedAnswer extends Error {}

export class OpenAiCopyProvider implements CopyProvider {
  readonly name = 'openai';
  /** A malformed answer is retried once. */
  private readonly maxAttempts = 2;

  constructor(private readonly cfg: AiConfig & { baseUrl: string }) {}

  maxUsage(messages: readonly ChatMessage[]): AiUsage {
    return {
      input_tokens: estimateInputTokens(messages) * this.maxAttempts,
      output_tokens: this.cfg.maxOutputTokens * this.maxAttempts,
    };
  }

  async generate(_req: CopyRequest, messages: ChatMessage[], limits: CopyLimits): Promise<CopyResult> {
    const usage: AiUsage = { input_tokens: 0, output_tokens: 0 };
    let lastProblem = '';
    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      try {
        const copy = await this.once(messages, limits, usage);
        return { copy, usage };
      } catch (err) {
        if (!(err instanceof MalformedAnswer)) throw err;
        lastProblem = err.message;
      }
    }
    throw new AppError('bad_gateway', `The AI provider answered with unusable content twice: ${lastProblem}`);
  }

  /** One call; adds what it consumed to `usage` even when the answer is unusable. */
  private async once(messages: ChatMessage[], limits: CopyLimits, usage: AiUsage): Promise<AiCopy> {
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${this.cfg.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.cfg.apiKey ? { authorization: `Bearer ${this.cfg.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: this.cfg.model,
          messages,
          max_tokens: this.cfg.maxOutputTokens,
          response_format:
            this.cfg.responseFormat === 'json_schema'
              ? { type: 'json_schema', json_schema: { name: 'ad_copy', schema: COPY_JSON_SCHEMA } }
              : { type: 'json_object' },
        }),
        signal: AbortSignal.timeout(this.cfg.timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      const timedOut = err instanceof Error && err.name === 'TimeoutError';
      throw new AppError(
        'bad_gateway',
        timedOut
          ? `The AI provider did not answer within ${this.cfg.timeoutMs} ms`
          : 'The AI provider could not be reached',
        {
          cause: err,
        },
      );
    }
    if (!res.ok) throw new AppError('bad_gateway', `The AI provider failed with HTTP ${res.status}`);

    const body = parseJson(text);
    const parsed = chatResponseSchema.safeParse(body);
    if (!parsed.success) throw new MalformedAnswer('not a chat-completions response');
    usage.input_tokens += parsed.data.usage?.prompt_tokens ?? estimateInputTokens(messages);
    usage.output_tokens += parsed.data.usage?.completion_tokens ?? Math.ceil(Buffer.byteLength(text) / 3);

    const copy = aiCopySchema.safeParse(parseJson(parsed.data.choices[0]?.message.content ?? ''));
    if (!copy.success)
      throw new MalformedAnswer(
        `the content does not match the ad-copy schema (${copy.error.issues[0]?.path.join('.') ?? ''}: ${copy.error.issues[0]?.message ?? ''})`,
      );
    const problems = copyProblems(copy.data, limits);
    if (problems.length > 0) throw new MalformedAnswer(problems[0] ?? 'too long');
    return copy.data;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function createCopyProvider(cfg: AiConfig): CopyProvider {
  return cfg.baseUrl ? new OpenAiCopyProvider({ ...cfg, baseUrl: cfg.baseUrl }) : templateProvider;
}
