import { ValidateBy } from 'class-validator';

// A key the schema once accepted but no code reads. Any value (even a bare `key:`) is refused with
// `why`, worded as the loader words an unknown key, so a file setting it neither passes silently nor
// reads as a typo, and the docs check (staleBrokerageKeys) catches an example still showing it.
export function NotRead(why: string): PropertyDecorator {
  return ValidateBy({
    name: 'notRead',
    validator: {
      validate: (value: unknown) => value === undefined,
      defaultMessage: () => `$property is not a known setting: ${why}`,
    },
  });
}
