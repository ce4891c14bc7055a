import { Inject, Injectable } from '@nestjs/common';
import { ALL_SCOPES } from '../emulator.scopes';
import { EMULATOR_OPTIONS, type EmulatorOptions } from './emulator.options';

// The portal's private-app tokens, each with the scopes it was granted.
@Injectable()
export class PrivateAppTokens {
  private readonly scopesByToken = new Map<string, readonly string[]>();

  constructor(@Inject(EMULATOR_OPTIONS) private readonly options: EmulatorOptions) {
    this.reset();
  }

  scopesOf(token: string): readonly string[] | undefined {
    return this.scopesByToken.get(token);
  }

  set(token: string, scopes: readonly string[]): void {
    this.scopesByToken.set(token, scopes);
  }

  reset(): void {
    this.scopesByToken.clear();
    this.scopesByToken.set(this.options.token, this.options.scopes ?? ALL_SCOPES);
    for (const t of this.options.tokens ?? []) this.scopesByToken.set(t.token, t.scopes);
  }
}
