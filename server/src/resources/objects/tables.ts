// Tables of the objects family (model, relations); see migrations/0010-model.ts.
import type { Generated } from 'kysely';

type Bool = boolean | number;

export interface PropertiesTable {
  id: Generated<number>;
  name: string;
  property_type_name: string;
  object_type_id: number;
  description: string | null;
  required: Bool;
  /** The name editors read (null: the machine name in words). */
  label: string | null;
  /** Its place among its type's properties (null: after the placed ones, by creation). */
  position: number | null;
  /** One of the type's own fields (BEdita's static properties), not a custom one. */
  is_static: Generated<Bool>;
  created: string;
  modified: string;
}

/** A property type: a name and the JSON Schema fragment its values must match. */
export interface PropertyTypesTable {
  id: Generated<number>;
  name: string;
  /** JSON Schema fragment (JSON text). */
  params: string | null;
  core_type: Bool;
  created: string;
  modified: string;
}

export interface RelationsTable {
  id: Generated<number>;
  name: string;
  inverse_name: string;
  label: string | null;
  inverse_label: string | null;
  description: string | null;
  params: string | null;
  created: string;
  modified: string;
}

export interface RelationTypesTable {
  id: Generated<number>;
  relation_id: number;
  object_type_id: number;
  side: 'left' | 'right';
}

export interface ObjectRelationsTable {
  id: Generated<number>;
  left_id: number;
  relation_id: number;
  right_id: number;
  priority: number;
  inv_priority: number;
  params: string | null;
}

export interface ObjectsFamilyTables {
  properties: PropertiesTable;
  property_types: PropertyTypesTable;
  relations: RelationsTable;
  relation_types: RelationTypesTable;
  object_relations: ObjectRelationsTable;
}
