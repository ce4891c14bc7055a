import { ValidateBy, type ValidationArguments } from 'class-validator';

// A `crm:` key one CRM kind reads and the other has no use for: set under the other kind, it is
// refused, naming the kind it belongs to, rather than kept and silently never read.
export function OnlyForCrm(kind: 'hubspot' | 'followupboss', why: string): PropertyDecorator {
  return ValidateBy({
    name: 'onlyForCrm',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) =>
        value === undefined || (args?.object as { kind?: unknown } | undefined)?.kind === kind,
      defaultMessage: () => `$property is read only for crm.kind ${kind}: ${why}`,
    },
  });
}
