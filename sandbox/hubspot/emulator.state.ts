import { AssociationStore } from './emulator.association-store';
import { ObjectStore } from './emulator.object-store';
import { SchemaStore } from './emulator.schema-store';

// Everything one emulated portal holds.
export class EmulatorState {
  readonly schema = new SchemaStore();
  readonly objects = new ObjectStore(this.schema);
  readonly associations = new AssociationStore();

  reset(): void {
    this.schema.reset();
    this.objects.reset();
    this.associations.reset();
  }
}
