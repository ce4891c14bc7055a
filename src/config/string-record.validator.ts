import { registerDecorator, type ValidationArguments } from 'class-validator';

// An object whose values are all non-empty strings (field name -> CRM property name).
export function IsStringRecord(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isStringRecord',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          Object.values(value).every((v) => typeof v === 'string' && v.trim() !== ''),
        defaultMessage: (args?: ValidationArguments) => {
          const value: unknown = args?.value;
          if (typeof value !== 'object' || value === null || Array.isArray(value)) {
            return '$property must be a map of field name to CRM property name';
          }
          const bad = Object.entries(value).find(([, v]) => typeof v !== 'string' || v.trim() === '');
          return `entry "${bad?.[0] ?? '?'}" must be a CRM property name (a non-empty string)`;
        },
      },
    });
  };
}
