import multipart from '@fastify/multipart';
import { create as contentDisposition } from 'content-disposition';
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import {
  FILE_SORT_FIELDS,
  findFile,
  findFileById,
  insertFile,
  listFiles,
  type FileRecord as FileRow,
} from '../../db/file/records.ts';
import { cleanFileName, declaredTypeAcceptable, isMediaType, type FilePurpose } from '../../domain/file-types.ts';
import { parseSorting } from '../../domain/pagination.ts';
import { checkDownload } from '../../storage/signed-urls.ts';
import { ApiError, badRequest, conflict, notFound } from '../../use-cases/errors.ts';
import { deleteUnshownFile } from '../../use-cases/file-deletion.ts';
import { fileTooLarge, invalidMultipart, receiveUpload, unsupportedFileType } from '../file-uploads.ts';
import { organizationCredential } from '../plugins/auth.ts';
import { replayResponse } from '../plugins/idempotency.ts';
import { errorResponses, isUuid, pageOf, pageOffset } from '../../use-cases/schemas/common.ts';
import {
  downloadQuery,
  fileParams,
  filePage,
  fileSchema,
  listFilesQuery,
  presentFile,
  uploadErrors,
  uploadFileBody,
  uploadFileQuery,
} from '../schemas/files.ts';
import type { RouteApp, RouteDeps } from '../route-deps.ts';

const tags = ['files'];
// The spec grants API keys read/write only on named resources; files fall to admin (fail closed).
const READ = { oat: ['files:read'], apiKey: 'files' } as const;
const WRITE = { oat: ['files:write'], apiKey: 'files' } as const;

/** Room for the multipart envelope around the file (boundaries, part headers) in a Content-Length. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/** The upload's body is described for the document, not validated: the handler reads the stream. */
function describedOnly<T>(route: Parameters<FastifySchemaCompiler<T>>[0]): ReturnType<FastifySchemaCompiler<T>> {
  if (route.httpPart === 'body') return (data) => ({ value: data });
  return validatorCompiler(route as unknown as Parameters<FastifySchemaCompiler<z.ZodType>>[0]);
}

export const filesRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const files = fileStore(deps);
  const { maxBytes } = files;
  await app.register(multipart, {
    limits: { fileSize: maxBytes, files: 1, fields: 10, fieldSize: 1024, parts: 11, headerPairs: 100 },
  });
  // Any other body type reaches the upload handler unread, which answers 415 in its own words.
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));
  uploadRoutes(app, deps, files);
  readRoutes(app, deps, files);
  deleteRoutes(app, deps, files);
  downloadRoutes(app, deps, files);
};

/**
 * The organization's file storage (its download URLs signed for the local disk), and what the routes
 * do with an upload and a file record.
 */
function fileStore(deps: RouteDeps) {
  const { config } = deps;
  const maxBytes = config.FILES_MAX_BYTES;
  const { storage } = deps.files;

  /** A record with a fresh URL (its time the one the URL carries). */
  async function withDownloadUrl(file: FileRow) {
    return presentFile(file, await deps.files.urlOf(file));
  }

  /** Streams the request's `file` part to storage: the file, not yet recorded. A refusal stores nothing. */
  async function storeUpload(request: FastifyRequest, organizationId: string, purpose: FilePurpose): Promise<FileRow> {
    if (!request.isMultipart()) {
      throw new ApiError(
        415,
        'unsupported_media_type',
        'Content-Type must be multipart/form-data',
        'Send the file as the multipart/form-data field `file`',
      );
    }
    if (Number(request.headers['content-length']) > maxBytes + MULTIPART_OVERHEAD_BYTES) throw fileTooLarge(maxBytes);
    const part = await request.file().catch((err: unknown) => {
      // The parser's own limits carry their 4xx; anything else it throws is a body it cannot read.
      const status = (err as { statusCode?: number }).statusCode;
      throw status && status >= 400 && status < 500 ? err : invalidMultipart(err);
    });
    if (!part) throw badRequest('Missing file', 'Send the file as the multipart/form-data field `file`');
    if (part.fieldname !== 'file') {
      throw badRequest('Unexpected file field', `Name the part \`file\`, not \`${part.fieldname}\``);
    }
    if (!declaredTypeAcceptable(purpose, part.mimetype)) {
      throw unsupportedFileType(`The part declared ${part.mimetype}`, purpose);
    }

    const id = uuidv7();
    const key = `${organizationId}/${id}`;
    const received = await receiveUpload(part.file, { type: part.mimetype, purpose }, storage, key, maxBytes);
    return {
      id,
      organizationId,
      name: cleanFileName(part.filename),
      purpose,
      ...received,
      storageKey: key,
      createdAt: new Date(),
    };
  }

  /** Runs `step` on a stored upload; if it throws, the stored bytes go too. */
  async function orDiscard<T>(request: FastifyRequest, file: FileRow, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (err) {
      await discard(request, file);
      throw err;
    }
  }

  async function discard(request: FastifyRequest, file: FileRow): Promise<void> {
    const key = file.storageKey;
    await storage.delete(key).catch((err: unknown) => request.log.error({ err, key }, 'stored file left behind'));
  }

  return { config, maxBytes, storage, withDownloadUrl, storeUpload, orDiscard, discard };
}

type FileStore = ReturnType<typeof fileStore>;

/** POST /: an upload, streamed to storage, then recorded (or discarded when refused or replayed). */
function uploadRoutes(app: RouteApp, deps: RouteDeps, files: FileStore): void {
  const { storeUpload, orDiscard, discard, withDownloadUrl } = files;
  app.post(
    '/',
    {
      onRequest: app.authenticate(WRITE),
      // The key is claimed once the bytes are read, so that it names this file, not any upload.
      config: { idempotencyAfterBody: true },
      validatorCompiler: describedOnly,
      schema: {
        tags,
        summary: 'Upload a file (multipart/form-data, field `file`)',
        description:
          "Streams the file to the organization's storage and records its size and SHA-256. `purpose` says what " +
          'it is for: `product_media` (the default: an image a product shows) or `downloadable` (any type). ' +
          'Bytes of a known type (their magic number) decide the type, and the part must declare the same ' +
          'type, application/octet-stream or none.',
        consumes: ['multipart/form-data'],
        querystring: uploadFileQuery,
        body: uploadFileBody,
        response: { 201: fileSchema, ...errorResponses, ...uploadErrors },
      },
    },
    async (request, reply) => {
      const { organizationId } = organizationCredential(request);
      try {
        const file = await storeUpload(request, organizationId, request.query.purpose);
        const content = {
          name: file.name,
          mime_type: file.mimeType,
          purpose: file.purpose,
          checksum_sha256: file.checksumSha256,
        };
        const stored = await orDiscard(request, file, () => app.claimIdempotencyKey(request, content));
        if (stored) {
          // Sent before with this key: the first upload's response, and these bytes are not kept twice.
          await discard(request, file);
          return replayResponse(reply, stored);
        }
        await orDiscard(request, file, () => insertFile(deps.orm.em.fork(), file));
        return reply.status(201).send(await withDownloadUrl(file));
      } catch (err) {
        // A refused upload may still be arriving: close the connection rather than read the rest or reuse it.
        if (err instanceof ApiError) reply.header('connection', 'close');
        throw err;
      }
    },
  );
}

/** GET / and GET /:id: file records, each with a fresh download URL. */
function readRoutes(app: RouteApp, deps: RouteDeps, files: FileStore): void {
  const { withDownloadUrl } = files;
  app.get(
    '/',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags,
        summary: "List the organization's files",
        description: 'sorting: created_at, name or size (- first for descending); default -created_at.',
        querystring: listFilesQuery,
        response: { 200: filePage, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const q = request.query;
      const sorting = parseSorting(q.sorting, FILE_SORT_FIELDS, '-created_at');
      if ('error' in sorting) throw badRequest('Invalid sorting', sorting.error);
      const { files, total } = await listFiles(deps.orm.em.fork(), organizationId, {
        sortField: sorting.field as (typeof FILE_SORT_FIELDS)[number],
        direction: sorting.direction,
        limit: q.limit,
        offset: pageOffset(q),
      });
      return pageOf(await Promise.all(files.map(withDownloadUrl)), total, q.limit);
    },
  );

  app.get(
    '/:id',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags,
        summary: 'Get a file with a fresh download URL',
        params: fileParams,
        response: { 200: fileSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const { id } = request.params;
      const file = isUuid(id) ? await findFile(deps.orm.em.fork(), organizationId, id) : null;
      if (!file) throw notFound('File');
      return withDownloadUrl(file);
    },
  );
}

/** DELETE /:id: the record, then its bytes (refused while a product shows the file). */
function deleteRoutes(app: RouteApp, deps: RouteDeps, files: FileStore): void {
  const { storage } = files;
  app.delete(
    '/:id',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags,
        summary: 'Delete a file and its bytes (refused while a product shows it as media)',
        params: fileParams,
        response: { 204: z.null().meta({ description: 'Deleted' }), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { organizationId } = organizationCredential(request);
      const { id } = request.params;
      if (!isUuid(id)) throw notFound('File');
      const outcome = await deleteUnshownFile(deps.orm.em, organizationId, id);
      if (!outcome) throw notFound('File');
      if ('shownBy' in outcome) {
        throw conflict(
          'File is a product media',
          `Remove it from the medias of product ${outcome.shownBy.join(', ')} first`,
        );
      }
      // The row is gone, so nothing serves the bytes any more; a failure here only leaves them behind.
      await storage
        .delete(outcome.deleted.storageKey)
        .catch((err: unknown) =>
          request.log.error({ err, key: outcome.deleted.storageKey }, 'stored file left behind'),
        );
      return reply.status(204).send(null);
    },
  );
}

/** GET /:id/download: the bytes, through a signed URL and without a credential (local storage). */
function downloadRoutes(app: RouteApp, deps: RouteDeps, files: FileStore): void {
  const { config, storage } = files;
  app.get(
    '/:id/download',
    {
      schema: {
        tags,
        summary: 'Download a file through its signed URL (local storage)',
        description:
          'The URL comes from a file record (download_url) and needs no credential until it expires. With S3 storage ' +
          'the record holds a presigned URL of the bucket instead, and this operation finds nothing.',
        params: fileParams,
        querystring: downloadQuery,
        response: {
          200: {
            description: 'The bytes, under the content type recorded at upload',
            content: { '*/*': { schema: z.any().meta({ type: 'string', format: 'binary' }) } },
          },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const check = checkDownload(config.filesUrlSigningSecret, id, request.query, new Date());
      if (check === 'invalid') {
        throw new ApiError(
          403,
          'invalid_signature',
          'Invalid download URL',
          'Get a new URL from GET /api/v1/files/<id>',
        );
      }
      if (check === 'expired') {
        throw new ApiError(
          403,
          'download_url_expired',
          'Download URL expired',
          'Get a new URL from GET /api/v1/files/<id>',
        );
      }
      const file = storage.open && isUuid(id) ? await findFileById(deps.orm.em.fork(), id) : null;
      if (!file || !storage.open) throw notFound('File');
      const body = await storage.open(file.storageKey);
      const secondsLeft = Math.max(0, request.query.expires - Math.floor(Date.now() / 1000));
      return reply
        .type(file.mimeType)
        .headers({
          'content-length': String(file.size),
          'content-disposition': contentDisposition(file.name, {
            type: isMediaType(file.mimeType) ? 'inline' : 'attachment',
          }),
          'repr-digest': `sha-256=:${Buffer.from(file.checksumSha256, 'hex').toString('base64')}:`,
          'cache-control': `private, max-age=${secondsLeft}`,
          'x-content-type-options': 'nosniff',
          // Served from the API's origin: the bytes must never run as a page there.
          'content-security-policy': "default-src 'none'; sandbox",
        })
        .send(body);
    },
  );
}
