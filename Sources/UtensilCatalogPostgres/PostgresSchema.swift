/// The PostgreSQL catalog's schema, as named migrations applied in order by
/// ``PostgresMigrator``. It mirrors the SQLite catalog's (UtensilCatalogSQLite's `SQLiteCatalog`), in
/// PostgreSQL's words:
///
/// - `utensils`: one row per utensil. Claims are unique among the rows that have them
///   (unique partial indexes `utensils_name_claim`, `utensils_content_claim`,
///   `utensils_source_key`): a refusal is told apart by the constraint's name. `host` is the
///   host that ingested it (nil for rows from before several hosts, or from a SQLite backup).
///   The text keys are compared and ordered bytewise (`COLLATE "C"`), as SQLite does,
///   whatever the database's locale.
/// - `utensil_count` (one row) and `category_counts`: counts kept by a trigger in the same
///   transaction as the rows, so `status` and `categories` read them at once. The trigger
///   always updates `utensil_count` first, so that concurrent writers queue on that row
///   rather than deadlock over category rows.
/// - `favorites`, `decoder_crashes`: as in SQLite.
/// - `hosts`: one row per host sharing the catalog, its heartbeat; `schema` (migration
///   `v5-hosts-schema`) how many migrations its utensild knows, null for a host of an older
///   version.
/// - `duties`: what one host at a time does (the trash purge), its holder and its lease.
/// - `pg_trgm` and a trigram index over `search_key` (the folded name): substring search
///   without reading every row.
/// - The listing indexes (`utensils_listing_by_name`, `utensils_listing_by_date`, both of the
///   rows not in the trash) carry `search_key` (migration `v3-search-listing`): a search in
///   sorted order tests each name in the index alone (an index-only scan), not in the table.
///
/// A migration's name and statements never change once released: a change is a new migration.
public enum PostgresSchema {
    /// One step of the schema: a name recorded in `utensild_migrations` once it is applied,
    /// and its statements (one each: the extended protocol takes a statement at a time).
    public struct Migration: Sendable {
        public let name: String
        let statements: [String]
    }

    /// Every migration, in the order they are applied.
    public static let migrations: [Migration] = [trigramExtension, catalog, hosts, duties, searchListing, events, hostsSchema, fingerprints, nearDuplicates]

    /// The table that records which migrations were applied.
    public static let migrationsTable = "utensild_migrations"

    /// The tables the daemon reads and writes (for the rights check).
    public static let tables = ["utensils", "utensil_count", "category_counts", "favorites", "decoder_crashes", "hosts", "duties", "not_a_copy", migrationsTable]

    /// `pg_trgm` is a trusted extension (PostgreSQL 13 and later): a role with CREATE on the
    /// database may create it.
    static let trigramExtension = Migration(name: "v1-pg-trgm", statements: [
        "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    ])

    static let catalog = Migration(name: "v1-catalog", statements: [
        """
        CREATE TABLE utensils (
            id uuid PRIMARY KEY,
            name text NOT NULL,
            name_key text COLLATE "C" NOT NULL,
            search_key text COLLATE "C" NOT NULL,
            extension text NOT NULL,
            created_at timestamptz NOT NULL,
            width integer NOT NULL,
            height integer NOT NULL,
            bytes bigint NOT NULL,
            sha256 text COLLATE "C" NOT NULL,
            source_key text COLLATE "C",
            name_claim text COLLATE "C",
            content_claim text COLLATE "C",
            category text,
            category_key text COLLATE "C",
            added_by text,
            updated_at timestamptz,
            trashed_at timestamptz,
            sort_key text COLLATE "C" NOT NULL,
            host text,
            CONSTRAINT utensils_category_has_key CHECK ((category IS NULL) = (category_key IS NULL)),
            CONSTRAINT utensils_sizes CHECK (width >= 0 AND height >= 0 AND bytes >= 0)
        )
        """,
        "CREATE UNIQUE INDEX utensils_name_claim ON utensils (name_claim) WHERE name_claim IS NOT NULL",
        "CREATE UNIQUE INDEX utensils_content_claim ON utensils (content_claim) WHERE content_claim IS NOT NULL",
        "CREATE UNIQUE INDEX utensils_source_key ON utensils (source_key) WHERE source_key IS NOT NULL",
        "CREATE INDEX utensils_name_key ON utensils (name_key)",
        "CREATE INDEX utensils_sha256 ON utensils (sha256)",
        "CREATE INDEX utensils_created_at ON utensils (created_at)",
        "CREATE INDEX utensils_in_trash ON utensils (trashed_at) WHERE trashed_at IS NOT NULL",
        "CREATE INDEX utensils_category_created_at ON utensils (category_key, created_at)",
        "CREATE INDEX utensils_category_sort_key ON utensils (category_key, sort_key)",
        "CREATE INDEX utensils_listing_by_name ON utensils (sort_key, id) WHERE trashed_at IS NULL",
        "CREATE INDEX utensils_listing_by_date ON utensils (created_at, id) WHERE trashed_at IS NULL",
        "CREATE INDEX utensils_search_key_trigrams ON utensils USING gin (search_key gin_trgm_ops)",
        """
        CREATE TABLE utensil_count (
            single boolean PRIMARY KEY DEFAULT true CONSTRAINT utensil_count_single CHECK (single),
            utensils bigint NOT NULL
        )
        """,
        "INSERT INTO utensil_count (single, utensils) VALUES (true, 0)",
        """
        CREATE TABLE category_counts (
            category_key text COLLATE "C" PRIMARY KEY,
            category text NOT NULL,
            utensils bigint NOT NULL
        )
        """,
        """
        CREATE FUNCTION utensils_keep_counts() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            -- utensil_count first, always: writers queue on that one row.
            IF TG_OP <> 'DELETE' AND NEW.trashed_at IS NULL THEN
                UPDATE utensil_count SET utensils = utensils + 1;
            END IF;
            IF TG_OP <> 'INSERT' AND OLD.trashed_at IS NULL THEN
                UPDATE utensil_count SET utensils = utensils - 1;
                IF OLD.category_key IS NOT NULL THEN
                    UPDATE category_counts SET utensils = utensils - 1 WHERE category_key = OLD.category_key;
                    DELETE FROM category_counts WHERE category_key = OLD.category_key AND utensils <= 0;
                END IF;
            END IF;
            IF TG_OP <> 'DELETE' AND NEW.trashed_at IS NULL AND NEW.category_key IS NOT NULL THEN
                INSERT INTO category_counts (category_key, category, utensils) VALUES (NEW.category_key, NEW.category, 1)
                    ON CONFLICT (category_key) DO UPDATE SET utensils = category_counts.utensils + 1;
            END IF;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER utensils_keep_counts AFTER INSERT OR DELETE OR UPDATE OF trashed_at, category_key ON utensils
            FOR EACH ROW EXECUTE FUNCTION utensils_keep_counts()
        """,
        """
        CREATE TABLE favorites (
            user_name text NOT NULL,
            utensil_id uuid NOT NULL REFERENCES utensils (id) ON DELETE CASCADE,
            PRIMARY KEY (user_name, utensil_id)
        )
        """,
        "CREATE INDEX favorites_utensil_id ON favorites (utensil_id)",
        """
        CREATE TABLE decoder_crashes (
            source_key text COLLATE "C" PRIMARY KEY,
            crashes integer NOT NULL CONSTRAINT decoder_crashes_positive CHECK (crashes > 0)
        )
        """,
    ])

    /// Each host's heartbeat: `utensilctl hosts` shows a host whose `last_seen` is recent as
    /// up, one that stopped (`stopped_at`) or went silent as gone.
    static let hosts = Migration(name: "v1-hosts", statements: [
        """
        CREATE TABLE hosts (
            name text COLLATE "C" PRIMARY KEY CONSTRAINT hosts_name CHECK (name ~ '^[A-Za-z0-9.-]{1,63}$'),
            version text NOT NULL,
            started_at timestamptz NOT NULL,
            last_seen timestamptz NOT NULL,
            stopped_at timestamptz,
            queued integer NOT NULL DEFAULT 0,
            ingested bigint NOT NULL DEFAULT 0,
            rejected bigint NOT NULL DEFAULT 0
        )
        """,
    ])

    static let duties = Migration(name: "v2-duties", statements: [
        """
        CREATE TABLE duties (
            name text COLLATE "C" PRIMARY KEY,
            holder text NOT NULL,
            until timestamptz NOT NULL
        )
        """,
    ])

    /// The listing indexes again, each carrying `search_key` (`INCLUDE`), so that a search
    /// whose matches lie far down the sort order (at a million utensils, "whisk" by name: the
    /// first 51 matches after 336,000 names) tests the names in the index, not by fetching
    /// every row from the table (1.3 s before, 14–70 ms after). Same keys and the same
    /// predicate as before: every plan that used the old ones uses these.
    static let searchListing = Migration(name: "v3-search-listing", statements: [
        "DROP INDEX utensils_listing_by_name",
        "DROP INDEX utensils_listing_by_date",
        "CREATE INDEX utensils_listing_by_name ON utensils (sort_key, id) INCLUDE (search_key) WHERE trashed_at IS NULL",
        "CREATE INDEX utensils_listing_by_date ON utensils (created_at, id) INCLUDE (search_key) WHERE trashed_at IS NULL",
    ])

    /// The event log every host appends to and reads from (``PostgresCatalog/appendEvents(_:host:)``):
    /// `seq` only grows, never reused.
    static let events = Migration(name: "v4-events", statements: [
        """
        CREATE TABLE events (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            host text NOT NULL,
            payload text NOT NULL
        )
        """,
    ])

    /// The newest schema each host's utensild knows (the number of migrations it knows), in
    /// its heartbeat: an older host learns from it that a newer one migrated the catalog.
    /// Null in the rows of hosts of older versions, which do not write it.
    static let hostsSchema = Migration(name: "v5-hosts-schema", statements: [
        "ALTER TABLE hosts ADD COLUMN schema integer",
    ])

    /// Each photo's look-alike fingerprint, and an index on each of its four 16-bit blocks
    /// that includes the whole fingerprint and the id, so that a look-up reads the indexes
    /// alone until a match (``FingerprintBlocks``; ``PostgresCatalog/lookalikes(of:within:limit:)``).
    static let fingerprints = Migration(name: "v6-fingerprints", statements: [
        "ALTER TABLE utensils ADD COLUMN fingerprint bigint",
        "CREATE INDEX utensils_fingerprint_0 ON utensils (((fingerprint >> 0) & 65535)) INCLUDE (fingerprint, id)",
        "CREATE INDEX utensils_fingerprint_1 ON utensils (((fingerprint >> 16) & 65535)) INCLUDE (fingerprint, id)",
        "CREATE INDEX utensils_fingerprint_2 ON utensils (((fingerprint >> 32) & 65535)) INCLUDE (fingerprint, id)",
        "CREATE INDEX utensils_fingerprint_3 ON utensils (((fingerprint >> 48) & 65535)) INCLUDE (fingerprint, id)",
    ])

    /// The utensil each was ingested as a look-alike of (its name then, the distance), and the
    /// pairs marked "not a copy" (`not_a_copy`, the smaller id first; gone with either utensil).
    static let nearDuplicates = Migration(name: "v7-near-duplicates", statements: [
        "ALTER TABLE utensils ADD COLUMN near_duplicate_of uuid",
        "ALTER TABLE utensils ADD COLUMN near_duplicate_name text",
        "ALTER TABLE utensils ADD COLUMN near_duplicate_distance integer",
        "CREATE INDEX utensils_near_duplicate_of ON utensils (near_duplicate_of) WHERE near_duplicate_of IS NOT NULL",
        """
        CREATE TABLE not_a_copy (
            utensil_id uuid NOT NULL REFERENCES utensils (id) ON DELETE CASCADE,
            other_id uuid NOT NULL REFERENCES utensils (id) ON DELETE CASCADE,
            PRIMARY KEY (utensil_id, other_id)
        )
        """,
        "CREATE INDEX not_a_copy_other_id ON not_a_copy (other_id)",
    ])
}
