import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The whole schema of the specification. Flags the specification stores as 1/0 are smallint
 * (R3 turns them into booleans on the wire); money is numeric; timestamps keep milliseconds.
 * Every tenant table has an (enterprise_id, created_at DESC, id DESC) index: the list order of R7.
 */
export class InitialSchema1763800000000 implements MigrationInterface {
  name = 'InitialSchema1763800000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE enterprises (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name varchar(255) NOT NULL,
        is_active smallint NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
        signprovider_b_key_encrypted text NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);

    await q.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name varchar(255) NOT NULL,
        email varchar(255) NOT NULL,
        password_hash text NOT NULL,
        is_active smallint NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email))`);

    await q.query(`
      CREATE TABLE memberships (
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        enterprise_id uuid NOT NULL REFERENCES enterprises (id) ON DELETE CASCADE,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, enterprise_id)
      )`);
    await q.query(`CREATE INDEX memberships_enterprise_idx ON memberships (enterprise_id, user_id)`);

    await q.query(`
      CREATE TABLE access_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        token_sha256 char(64) NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX access_tokens_user_idx ON access_tokens (user_id)`);

    await q.query(`
      CREATE TABLE leads (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        enterprise_id uuid NULL REFERENCES enterprises (id) ON DELETE CASCADE,
        title varchar(255) NOT NULL,
        description text NULL,
        person_name varchar(255) NULL,
        organisation_name varchar(255) NULL,
        person_id jsonb NULL,
        organisation_id jsonb NULL,
        has_abn jsonb NULL,
        abn text NULL,
        user_assigned_id jsonb NULL,
        use text NULL,
        asset_description text NULL,
        purchase_price jsonb NULL,
        deposit jsonb NULL,
        trade_in jsonb NULL,
        finance_amount jsonb NULL,
        residual jsonb NULL,
        finance_term jsonb NULL,
        funds_required_within text NULL,
        realestate_owner jsonb NULL,
        finance_last_3_years jsonb NULL,
        applied_already jsonb NULL,
        broker_id jsonb NULL,
        phone text NULL,
        phone_type text NULL,
        email text NULL,
        email_type text NULL,
        source text NULL,
        extra_input jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX leads_enterprise_newest_idx ON leads (enterprise_id, created_at DESC, id DESC)`);

    await q.query(`
      CREATE TABLE people (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        enterprise_id uuid NULL REFERENCES enterprises (id) ON DELETE CASCADE,
        title varchar(255) NULL,
        first_name_encrypted text NULL,
        middle_name varchar(255) NULL,
        last_name varchar(255) NULL,
        salutation varchar(255) NULL,
        maiden_name varchar(255) NULL,
        birthday date NULL,
        gender varchar(255) NULL,
        licence varchar(255) NULL,
        licence_card varchar(255) NULL,
        licence_state varchar(255) NULL,
        licence_expiry date NULL,
        dependents integer NULL,
        dependents_ages varchar(255) NULL,
        marital_status varchar(255) NULL,
        residency_status varchar(255) NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX people_enterprise_newest_idx ON people (enterprise_id, created_at DESC, id DESC)`);

    await q.query(`
      CREATE TABLE organisations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        enterprise_id uuid NULL REFERENCES enterprises (id) ON DELETE CASCADE,
        legal_name varchar(255) NOT NULL,
        legal_structure varchar(255) NULL,
        short_name varchar(255) NULL,
        trust_name varchar(255) NULL,
        acn varchar(255) NULL,
        abn varchar(255) NULL,
        entity_type varchar(255) NULL,
        abn_registration date NULL,
        abn_status varchar(255) NULL,
        gst_registered smallint NOT NULL DEFAULT 0 CHECK (gst_registered IN (0, 1)),
        gst_date date NULL,
        business_name varchar(255) NULL,
        business_name2 varchar(255) NULL,
        business_name3 varchar(255) NULL,
        former_name varchar(255) NULL,
        former_name2 varchar(255) NULL,
        former_name3 varchar(255) NULL,
        description text NULL,
        established_date date NULL,
        employees_count integer NULL,
        industry varchar(255) NULL,
        website varchar(2048) NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX organisations_enterprise_newest_idx ON organisations (enterprise_id, created_at DESC, id DESC)`,
    );

    // Contact rows belong to exactly one person or one organisation.
    for (const [table, columns] of [
      [
        'phone_numbers',
        `type varchar(255) NOT NULL, number varchar(255) NOT NULL,
        is_primary smallint NOT NULL DEFAULT 0 CHECK (is_primary IN (0, 1)),`,
      ],
      [
        'emails',
        `address varchar(255) NOT NULL,
        is_primary smallint NOT NULL DEFAULT 0 CHECK (is_primary IN (0, 1)),`,
      ],
      [
        'addresses',
        `type varchar(255) NULL, address text NULL, line1 varchar(255) NULL,
        line2 varchar(255) NULL, line3 varchar(255) NULL, suburb varchar(255) NULL,
        state varchar(255) NULL, postcode varchar(32) NULL,`,
      ],
    ] as const) {
      await q.query(`
        CREATE TABLE ${table} (
          id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
          person_id uuid NULL REFERENCES people (id) ON DELETE CASCADE,
          organisation_id uuid NULL REFERENCES organisations (id) ON DELETE CASCADE,
          ${columns}
          created_at timestamptz(3) NOT NULL DEFAULT now(),
          updated_at timestamptz(3) NOT NULL DEFAULT now(),
          CONSTRAINT ${table}_one_owner CHECK (num_nonnulls(person_id, organisation_id) = 1)
        )`);
      await q.query(
        `CREATE INDEX ${table}_person_idx ON ${table} (person_id, created_at, id) WHERE person_id IS NOT NULL`,
      );
      await q.query(
        `CREATE INDEX ${table}_organisation_idx ON ${table} (organisation_id, created_at, id) WHERE organisation_id IS NOT NULL`,
      );
    }

    await q.query(`
      CREATE TABLE financials (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        person_id uuid NOT NULL REFERENCES people (id) ON DELETE CASCADE,
        type varchar(255) NOT NULL,
        amount numeric(14, 2) NOT NULL,
        category varchar(255) NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX financials_person_idx ON financials (person_id, created_at, id) WHERE amount > 0`);

    await q.query(`
      CREATE TABLE applications (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        enterprise_id uuid NOT NULL REFERENCES enterprises (id) ON DELETE CASCADE,
        settlement_date_actual date NULL,
        contract_number varchar(255) NULL,
        source_of_business varchar(255) NULL,
        crm_deal_id varchar(255) NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        UNIQUE (id, enterprise_id)
      )`);
    await q.query(
      `CREATE INDEX applications_enterprise_newest_idx ON applications (enterprise_id, created_at DESC, id DESC)`,
    );

    // The composite foreign key keeps a quote and its application in one enterprise.
    await q.query(`
      CREATE TABLE quotes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        enterprise_id uuid NOT NULL REFERENCES enterprises (id) ON DELETE CASCADE,
        application_id uuid NULL,
        is_active smallint NOT NULL DEFAULT 0 CHECK (is_active IN (0, 1)),
        asset_type varchar(255) NULL,
        asset_description text NULL,
        financier varchar(255) NULL,
        total_finance_amount numeric(14, 2) NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        FOREIGN KEY (application_id, enterprise_id) REFERENCES applications (id, enterprise_id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX quotes_enterprise_newest_idx ON quotes (enterprise_id, created_at DESC, id DESC)`);
    await q.query(
      `CREATE INDEX quotes_active_by_application_idx ON quotes (application_id, created_at DESC, id DESC) WHERE is_active = 1`,
    );

    await q.query(`
      CREATE TABLE signing_documents (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        enterprise_id uuid NOT NULL REFERENCES enterprises (id) ON DELETE CASCADE,
        provider char(1) NOT NULL CHECK (provider IN ('a', 'b')),
        external_id varchar(255) NOT NULL,
        status varchar(32) NOT NULL,
        signed_at timestamptz(3) NULL,
        declined_at timestamptz(3) NULL,
        revoked_at timestamptz(3) NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT signing_documents_external_key UNIQUE (provider, external_id),
        CONSTRAINT signing_documents_status_check CHECK (
          (provider = 'a' AND status IN ('sent', 'viewed', 'signed', 'declined', 'revoked')) OR
          (provider = 'b' AND status IN ('sent', 'delivered', 'completed', 'declined', 'voided'))
        )
      )`);
    await q.query(`CREATE INDEX signing_documents_enterprise_idx ON signing_documents (enterprise_id)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'signing_documents',
      'quotes',
      'applications',
      'financials',
      'addresses',
      'emails',
      'phone_numbers',
      'organisations',
      'people',
      'leads',
      'access_tokens',
      'memberships',
      'users',
      'enterprises',
    ]) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
