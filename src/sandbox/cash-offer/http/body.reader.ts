import { IncomingMessage } from 'node:http';
import { ApiError } from '../sandbox.errors';

export const MAX_BODY_BYTES = 1024 * 1024;

function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const type = header.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

// Reads a JSON body: 415 when it is not JSON, 413 over 1 MiB, 400 when it does not parse.
// An empty body reads as undefined (validators then say what is missing).
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const length = req.headers['content-length'];
  const hasBody = (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
  if (!hasBody) return undefined;
  if (!isJsonContentType(req.headers['content-type']))
    throw new ApiError(
      415,
      `the body must be JSON sent with Content-Type: application/json; got ${req.headers['content-type'] ?? 'no Content-Type'}`,
    );
  const bytes = await collect(req);
  if (bytes === undefined) throw tooLarge();
  const text = bytes.toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ApiError(400, `the body is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}

// The whole body, or undefined when it is over the limit. An oversized body is still read to its
// end (and thrown away) so the client receives the 413 instead of a reset connection.
function collect(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function tooLarge(): ApiError {
  return new ApiError(413, `the body is over ${MAX_BODY_BYTES} bytes; the service accepts at most 1 MiB`, {
    connection: 'close',
  });
}
