import { getMetadataStorage, ValidationTypes } from 'class-validator';

type ValidationMetadata = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];

export type JsonSchema = Record<string, unknown>;

export interface ValidationSchemaOptions {
  /** Component name of the schema in the document. */
  title: string;
  description?: string;
  /** The class's rules pass null for a field that is not required (Laravel's `nullable`). */
  nullable?: boolean;
  /** Properties the server fills itself (the lead's `team`): validated, not sent. */
  omit?: readonly string[];
  /**
   * Whether keys outside the class are accepted (and dropped or kept; the description says).
   * Accepted keys are left unsaid rather than `additionalProperties: true`, so a generated client
   * type stays closed and catches a misspelt key.
   */
  additionalProperties?: boolean;
  /** A body that passes, shown by Swagger UI and checked by the OpenAPI lint. */
  example?: Record<string, unknown>;
}

interface PropertyFacts {
  schema: JsonSchema;
  required: boolean;
  requiredWithout: string[];
}

type Rule = (facts: PropertyFacts, constraints: readonly unknown[]) => void;

const SCALAR_TYPES = ['string', 'number', 'boolean', 'null'];

/**
 * What each validation rule means as JSON Schema. A rule with no entry here stops the document
 * from being built, so a new rule cannot leave the documentation behind.
 */
const RULES: Record<string, Rule> = {
  // IsDefined, write-rules Required() (no constraint) and RequiredWithout(other).
  isDefined: (facts, constraints) => {
    const other = constraints[0];
    if (typeof other === 'string') facts.requiredWithout.push(other);
    else facts.required = true;
  },
  isNotEmpty: (facts) => {
    facts.schema.minLength = 1;
  },
  isString: (facts) => {
    facts.schema.type = 'string';
  },
  isEmail: (facts) => {
    facts.schema.format = 'email';
  },
  maxChars: (facts, constraints) => {
    // JSON Schema counts characters (code points), as maxChars does.
    facts.schema.maxLength = constraints[0];
  },
  isIn: (facts, constraints) => {
    facts.schema.enum = [...(constraints[0] as readonly string[])];
  },
  isDateTime: (facts) => {
    facts.schema.format = 'date-time';
  },
  isRecordId: (facts) => {
    facts.schema.format = 'uuid';
  },
  isScalar: (facts) => {
    facts.schema.type = [...SCALAR_TYPES];
  },
  // Text PostgreSQL can store; a 400 otherwise. JSON Schema has no word for unpaired surrogates.
  isStorable: (facts) => {
    facts.schema.description = 'Must not contain NUL characters or unpaired surrogates.';
  },
};

function ruleName(metadata: ValidationMetadata): string {
  if (metadata.type !== ValidationTypes.CUSTOM_VALIDATION) return metadata.type;
  const [constraint] = getMetadataStorage().getTargetValidatorConstraints(metadata.constraintCls);
  return metadata.name ?? constraint?.name ?? 'unknown';
}

/**
 * The JSON Schema (OpenAPI 3.1) of a request body class, read from its class-validator rules:
 * the documentation and the validation are the same definitions.
 */
export function validationSchema(target: new () => object, options: ValidationSchemaOptions): JsonSchema {
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(target, '', true, false);
  const facts = new Map<string, PropertyFacts>();
  for (const metadata of metadatas) {
    if (options.omit?.includes(metadata.propertyName)) continue;
    let property = facts.get(metadata.propertyName);
    if (property === undefined) {
      property = { schema: {}, required: false, requiredWithout: [] };
      facts.set(metadata.propertyName, property);
    }
    const name = ruleName(metadata);
    const rule = RULES[name];
    if (rule === undefined) {
      throw new Error(`No OpenAPI meaning for validation rule "${name}" on ${target.name}.${metadata.propertyName}`);
    }
    rule(property, metadata.constraints ?? []);
  }

  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const alternatives: string[][] = [];
  for (const [name, property] of facts) {
    const schema = { ...property.schema };
    if (options.nullable && !property.required) {
      const type = schema.type;
      if (typeof type === 'string') schema.type = [type, 'null'];
      else if (type === undefined) schema.type = [...SCALAR_TYPES];
    }
    properties[name] = schema;
    if (property.required) required.push(name);
    for (const other of property.requiredWithout) {
      const pair = [name, other].sort();
      if (!alternatives.some((a) => a.join() === pair.join())) alternatives.push(pair);
    }
  }
  const present = (name: string): JsonSchema => ({
    type: 'object',
    // Blank strings count as absent: the field that stands in for the other must say something.
    properties: { [name]: { ...facts.get(name)?.schema, pattern: '\\S' } },
    required: [name],
  });
  // "One of these fields is required" as alternatives a client generator can type: the fields in
  // one object, then for each pair an object that has one field or the other (openapi-typescript
  // makes that `Fields & (A | B)`), never a bare list of required keys (which it types as unknown).
  const fields: JsonSchema = {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    ...(options.additionalProperties === true ? {} : { additionalProperties: false }),
  };
  return {
    title: options.title,
    ...(options.description ? { description: options.description } : {}),
    ...(alternatives.length === 0
      ? fields
      : { allOf: [fields, ...alternatives.map((pair) => ({ anyOf: pair.map(present) }))] }),
    ...(options.example ? { examples: [options.example] } : {}),
  };
}
