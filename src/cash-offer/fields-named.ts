// Which of these wire field names a service's message speaks of, each as a whole word ("BathroomsFull"
// is not "Bathrooms"; "counter_lease_back_period" is not "counter_lease_back"), whatever its
// wording around them ("X is required", "must have required property 'X'", "missing X").
export function fieldsNamed(message: string, fields: Iterable<string>): string[] {
  return [...fields].filter((field) => new RegExp(`\\b${field}\\b`).test(message));
}
