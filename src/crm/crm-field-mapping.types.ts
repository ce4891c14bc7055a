// Where one of the spec's property fields (`property.StreetName` ...) comes from in the CRM: the
// listing deal or its seller contact; several properties are joined with a space.
export interface CrmFieldSource {
  source: 'deal' | 'seller_contact';
  properties: string[];
}

export type CrmFieldMapping = Readonly<Record<string, CrmFieldSource>>;

// What an adapter contributes to the field mapping: its default, the fields the CRM has built in
// (setup-crm never creates those) and the shape of a field name in that CRM.
export interface CrmMappingDefaults {
  // The CRM's name as an operator knows it, for messages.
  vendor: string;
  mapping: CrmFieldMapping;
  builtIn: ReadonlySet<string>;
  propertyName: RegExp;
  // propertyName in words, for messages.
  propertyNameRule: string;
}
