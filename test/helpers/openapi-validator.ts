import { createRequire } from 'node:module';

/**
 * A JSON Schema 2020-12 validator (OpenAPI 3.1's dialect) for payloads against the app's OpenAPI
 * document: Ajv 8 and its formats as Fastify validates with them (@fastify/ajv-compiler's own, not
 * the older Ajv at the top of node_modules).
 */
const fromFastify = createRequire(createRequire(import.meta.url).resolve('@fastify/ajv-compiler'));
const Ajv2020 = fromFastify('ajv/dist/2020').default;
const addFormats = fromFastify('ajv-formats').default;

interface Validate {
  (data: unknown): boolean;
  errors?: { instancePath: string; message?: string; params?: unknown }[] | null;
}

/** The errors of an event against its entry of the document's `webhooks` (none: it conforms). */
export function webhookValidator(document: any): (event: { type: string }) => string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const compiled = new Map<string, Validate>();
  return (event) => {
    const entry = document.webhooks?.[event.type];
    if (!entry) return [`${event.type}: not in the document's webhooks`];
    let validate = compiled.get(event.type);
    if (!validate) {
      const schema = entry.post.requestBody.content['application/json'].schema;
      validate = ajv.compile({ ...schema, components: document.components }) as Validate;
      compiled.set(event.type, validate);
    }
    if (validate(event)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
  };
}
