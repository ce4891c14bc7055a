import { registerDecorator, type ValidationArguments } from 'class-validator';

// An object whose values are all strings (spec field name -> CRM property; "" leaves it unmapped).
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
          Object.values(value).every((v) => typeof v === 'string'),
        defaultMessage: (args?: ValidationArguments) => {
          const value: unknown = args?.value;
          if (typeof value !== 'object' || value === null || Array.isArray(value)) {
            return '$property must be a map of field name to CRM property name';
          }
          const bad = Object.entries(value).find(([, v]) => typeof v !== 'string');
          return `entry "${bad?.[0] ?? '?'}" must be a string: a CRM property, "seller_contact:a,b", or "" for unmapped`;
        },
      },
    });
  };
}
