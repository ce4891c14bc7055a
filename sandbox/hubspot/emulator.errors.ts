import { randomUUID } from 'node:crypto';

// A HubSpot-shaped failure: the server turns it into `{ status, message, correlationId, category }`.
export class HubSpotHttpError extends Error {
  constructor(
    readonly status: number,
    readonly category: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    return errorBody(this.category, this.message, this.extra);
  }
}

export function errorBody(
  category: string,
  message: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { status: 'error', message, correlationId: randomUUID(), category, ...extra };
}

export interface PropertyProblem {
  name: string;
  message: string;
  // HubSpot's codes: PROPERTY_DOESNT_EXIST, INVALID_INTEGER, INVALID_OPTION, READ_ONLY_VALUE ...
  error: string;
}

// HubSpot answers bad property values with one message listing every problem.
export function validationError(problems: PropertyProblem[]): HubSpotHttpError {
  const listed = problems.map((p) => ({ isValid: false, message: p.message, error: p.error, name: p.name }));
  return new HubSpotHttpError(
    400,
    'VALIDATION_ERROR',
    `Property values were not valid: ${JSON.stringify(listed)}`,
    {
      errors: problems.map((p) => ({
        message: p.message,
        code: p.error,
        context: { propertyName: [p.name] },
      })),
    },
  );
}

export const notFound = (message: string): HubSpotHttpError =>
  new HubSpotHttpError(404, 'OBJECT_NOT_FOUND', message);

export const badRequest = (message: string): HubSpotHttpError =>
  new HubSpotHttpError(400, 'VALIDATION_ERROR', message);

export const conflict = (message: string): HubSpotHttpError => new HubSpotHttpError(409, 'CONFLICT', message);
