import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { map, Observable } from 'rxjs';
import { SpecReadings } from '../spec-readings';
import { writeTimestamps } from '../timestamp-format';

// Writes the times of every API answer as the `timestampFormat` reading says (timestamp-format.ts).
@Injectable()
export class TimestampFormatInterceptor implements NestInterceptor {
  constructor(private readonly readings: SpecReadings) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next
      .handle()
      .pipe(map((body: unknown) => writeTimestamps(body, this.readings.current.timestampFormat)));
  }
}
