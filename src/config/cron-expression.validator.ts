import { validateCronExpression } from 'cron';
import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';

// Accepts what the scheduler's cron library accepts (5 fields, or 6 with seconds first).
export function cronExpressionError(expression: unknown): string | undefined {
  if (typeof expression !== 'string' || expression.trim() === '') return 'must be a cron expression';
  const fields = expression.trim().split(/\s+/).length;
  if (fields !== 5 && fields !== 6) return `must be a cron expression of 5 or 6 fields, got ${fields}`;
  const { valid, error } = validateCronExpression(expression);
  return valid ? undefined : `is not a valid cron expression (${error?.message ?? 'unparseable'})`;
}

export function IsCronExpression(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isCronExpression',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => cronExpressionError(value) === undefined,
        defaultMessage: (args?: ValidationArguments) =>
          `$property ${cronExpressionError(args?.value) ?? 'must be a cron expression'}: "${String(args?.value)}"`,
      },
    });
  };
}
