import Ajv from 'ajv/dist/2020';
import { readFileSync } from 'node:fs';
import { endpointTable, type OpenApiPaths } from '../../dev/endpoint-table';
import { resolve } from 'node:path';
import { startApiWithoutWorkers, type ApiUnderTest } from '../harness/api';
import { useWorld } from '../harness/test-world';

/** One `curl` of docs/api.md, with the JSON block after it when that is its answer. */
interface Example {
  method: string;
  path: string;
  body?: unknown;
  answer?: unknown;
}

interface Operation {
  requestBody?: { content: { 'application/json': { schema: object } } };
  responses: Record<string, { content?: { 'application/json': { schema: object } } }>;
}

interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components: object;
}

/** A block of curls answers with the JSON block right after it only when it holds one curl. */
function examplesOf(markdown: string): Example[] {
  const blocks = [...markdown.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((match) => ({
    language: match[1]!,
    text: match[2]!,
  }));
  return blocks.flatMap((block, index) => {
    if (block.language !== 'sh') return [];
    const calls = block.text
      .replace(/\\\n\s*/g, ' ')
      .split(/^(?=curl )/m)
      .filter((command) => command.startsWith('curl '))
      .map((command): Example => {
        const url = command.match(/(?:-X (\w+) )?http:\/\/127\.0\.0\.1:8080(\/\S+)/);
        const body = command.match(/ -d '([^']*)'/);
        return {
          method: (command.match(/-X (\w+)/)?.[1] ?? 'GET').toLowerCase(),
          path: url![2]!.split('?')[0]!,
          ...(body && { body: JSON.parse(body[1]!) as unknown }),
        };
      });
    const next = blocks[index + 1];
    if (calls.length === 1 && next?.language === 'json') {
      calls[0]!.answer = JSON.parse(next.text) as unknown;
    }
    return calls;
  });
}

const routePattern = (template: string) =>
  new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);

const world = useWorld({ tenants: {} });
let api: ApiUnderTest;
let openapi: OpenApi;
const examples = examplesOf(readFileSync(resolve(__dirname, '../../docs/api.md'), 'utf8'));
beforeAll(async () => {
  api = await startApiWithoutWorkers(world);
  openapi = (await (await fetch(`${api.url}/openapi.json`)).json()) as OpenApi;
});
world.onStop(async () => {
  await api?.close();
});

describe('docs/api.md, by example', () => {
  it('shows every call that changes something (each POST and PUT of the API)', () => {
    const changing = Object.entries(openapi.paths).flatMap(([path, methods]) =>
      Object.keys(methods)
        .filter((method) => method === 'post' || method === 'put')
        .map((method) => ({ method, path })),
    );
    const shown = changing.filter((route) =>
      examples.some(
        (example) => example.method === route.method && routePattern(route.path).test(example.path),
      ),
    );
    expect(changing.filter((route) => !shown.includes(route))).toEqual([]);
  });

  it('shows the endpoint table made from /openapi.json: every route, its keys and scope, what it does', () => {
    const doc = readFileSync(resolve(__dirname, '../../docs/api.md'), 'utf8');
    // npm run docs:config writes it; a route added, moved or described anew fails here until then.
    expect(doc).toContain(endpointTable(openapi as OpenApiPaths));
  });

  it('sends bodies the API takes and shows answers it gives (by /openapi.json)', () => {
    const ajv = new Ajv({ strict: false, validateFormats: false });
    const problems: string[] = [];
    const check = (what: string, schema: object, value: unknown) => {
      const validate = ajv.compile({ ...schema, components: openapi.components });
      if (!validate(value)) problems.push(`${what}: ${ajv.errorsText(validate.errors)}`);
    };
    for (const example of examples) {
      const where = `${example.method.toUpperCase()} ${example.path}`;
      const operation = Object.entries(openapi.paths)
        .filter(([template]) => routePattern(template).test(example.path))
        .map(([, methods]) => methods[example.method])
        .find((found) => found !== undefined);
      if (operation === undefined) {
        problems.push(`${where}: no such route`);
        continue;
      }
      const bodySchema = operation.requestBody?.content['application/json'].schema;
      if (example.body !== undefined) {
        if (bodySchema === undefined)
          problems.push(`${where}: sends a body the route takes none of`);
        else check(`${where} body`, bodySchema, example.body);
      }
      if (example.answer === undefined) continue;
      const refused = typeof example.answer === 'object' && 'code' in (example.answer ?? {});
      const status = Object.keys(operation.responses).find((code) =>
        refused ? code.startsWith('4') : code.startsWith('2'),
      );
      const answerSchema = status && operation.responses[status]!.content?.['application/json'];
      if (!answerSchema) problems.push(`${where}: answers with no body`);
      else check(`${where} answer`, answerSchema.schema, example.answer);
    }
    expect(problems).toEqual([]);
    expect(examples.filter((example) => example.answer !== undefined).length).toBeGreaterThan(10);
  });
});
