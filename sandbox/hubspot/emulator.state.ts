import { AssociationStore } from './emulator.association-store';
import { ObjectStore } from './emulator.object-store';
import { OwnerStore, type EmulatedOwner } from './emulator.owner-store';
import { SchemaStore } from './emulator.schema-store';

// Everything one emulated portal holds.
export class EmulatorState {
  readonly schema = new SchemaStore();
  readonly owners: OwnerStore;
  readonly objects: ObjectStore;
  readonly associations = new AssociationStore();

  constructor(owners?: readonly EmulatedOwner[]) {
    this.owners = new OwnerStore(owners);
    this.objects = new ObjectStore(this.schema, (id) => this.owners.assignable(id));
  }

  reset(): void {
    this.owners.reset();
    this.schema.reset();
    this.objects.reset();
    this.associations.reset();
  }
}
