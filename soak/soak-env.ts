// A whole number >= 0 from the environment, or the fallback when unset; anything else stops the script.
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0)
    throw new Error(`${name} must be a whole number >= 0, not ${raw}`);
  return value;
}
