import { Injectable } from '@nestjs/common';

// Where the sandbox listens, known once it does (the OpenAPI document's server URL names it).
@Injectable()
export class SandboxAddress {
  url = '';
}
