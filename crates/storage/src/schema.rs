//! The tables, for Diesel. Portable types only: TEXT ids and enums, BIGINT integers
//! and times (microseconds since the Unix epoch, UTC), JSON as TEXT.

diesel::table! {
    /// Entities: the columns filters, orders and counts use.
    entities (tenant_id, id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// Resource id.
        id -> Text,
        /// `uid` (UUID v4).
        uid -> Text,
        /// Version counter behind the etag.
        revision -> BigInt,
        /// `entityType`.
        entity_type -> Text,
        /// `displayName`.
        display_name -> Text,
        /// How many trigrams the display name has (ranks a search in SQL).
        display_name_trigrams -> BigInt,
        /// `riskDetails.riskLevel`; NULL when unrated.
        risk_level -> Nullable<Text>,
        /// `screeningStatus`; NULL when unset.
        screening_status -> Nullable<Text>,
        /// `verificationStatus`; NULL when unset.
        verification_status -> Nullable<Text>,
        /// `legalHold`.
        legal_hold -> Bool,
        /// `createTime`.
        create_time -> BigInt,
        /// `updateTime`.
        update_time -> BigInt,
        /// `deleteTime`, when soft-deleted.
        delete_time -> Nullable<BigInt>,
        /// `purgeTime`, when soft-deleted.
        purge_time -> Nullable<BigInt>,
        /// `riskDetails.riskStatus`; NULL when unrated.
        risk_status -> Nullable<Text>,
    }
}

diesel::table! {
    /// The JSON of each entity without its standard fields, apart from `entities` so
    /// that scans of `entities` read narrow rows.
    entity_bodies (tenant_id, entity_id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The entity.
        entity_id -> Text,
        /// The resource JSON without its standard fields.
        body -> Text,
        /// `monitoring`: whether ongoing monitoring re-screens the entity (the body's
        /// field, beside it for the monitoring scan and filters).
        monitoring -> Bool,
    }
}

diesel::table! {
    /// One row per tag of an entity (for `tags:` filters).
    entity_tags (tenant_id, entity_id, tag) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The entity.
        entity_id -> Text,
        /// The tag.
        tag -> Text,
    }
}

diesel::table! {
    /// One row per external id of an entity (for `externalIds` filters).
    entity_external_ids (tenant_id, entity_id, id_key) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The entity.
        entity_id -> Text,
        /// The system name.
        id_key -> Text,
        /// The id in that system.
        id_value -> Text,
    }
}

diesel::table! {
    /// The log of entity display-name changes (inserted, renamed, soft-deleted or
    /// undeleted, removed) that the in-memory search index follows, written by triggers.
    entity_search_changes (tenant_id, change_xid, entity_id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The writing transaction's id on PostgreSQL, a per-tenant counter on SQLite.
        change_xid -> BigInt,
        /// The entity changed.
        entity_id -> Text,
    }
}

diesel::table! {
    /// Relationships: `related_entity_id` holds the role towards `entity_id`.
    entity_relationships (tenant_id, id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// Relationship id.
        id -> Text,
        /// The entity it was added to.
        entity_id -> Text,
        /// The role holder.
        related_entity_id -> Text,
        /// The kind of relationship.
        relationship_type -> Text,
        /// Share of ownership in percent.
        ownership_percentage -> Nullable<Double>,
        /// Free-text note.
        note -> Text,
        /// When it was added.
        create_time -> BigInt,
    }
}

diesel::table! {
    /// Request ids already served (AIP-155).
    idempotency_keys (tenant_id, request_id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The client's request id.
        request_id -> Text,
        /// The method it was used with.
        method -> Text,
        /// Fingerprint of the first request.
        fingerprint -> Text,
        /// The resource the first request produced.
        resource_name -> Text,
        /// When it was first used.
        create_time -> BigInt,
    }
}

diesel::table! {
    /// The event outbox: one row per change.
    events (tenant_id, id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// Event id.
        id -> Text,
        /// The entity, for entity-scoped events.
        entity_id -> Nullable<Text>,
        /// `{resource}.{verb}`.
        event_type -> Text,
        /// The JSON payload.
        payload -> Text,
        /// Subject of the principal that made the change.
        creator -> Text,
        /// When the change happened.
        create_time -> BigInt,
    }
}

diesel::table! {
    /// Secrets the server generates once and shares across replicas.
    server_secrets (name) {
        /// What the secret is for.
        name -> Text,
        /// The secret, base64.
        secret -> Text,
        /// When it was generated.
        create_time -> BigInt,
    }
}

diesel::table! {
    /// Tenants: isolated sets of data.
    tenants (id) {
        /// Tenant id.
        id -> Text,
        /// `displayName`.
        display_name -> Text,
        /// `tenantType`: PARTNER or STANDARD.
        tenant_type -> Text,
        /// The id of the partner tenant that created it; NULL for a top-level tenant.
        parent -> Nullable<Text>,
        /// `state`.
        state -> Text,
        /// `createTime`.
        create_time -> BigInt,
        /// `updateTime`.
        update_time -> BigInt,
    }
}

diesel::table! {
    /// OAuth 2.0 clients, by their globally unique client id.
    oauth_clients (client_id) {
        /// The client id.
        client_id -> Text,
        /// The tenant it acts for.
        tenant_id -> Text,
        /// Human-readable name.
        display_name -> Text,
        /// Argon2 hash of the secret; NULL for a public client.
        secret_hash -> Nullable<Text>,
        /// Scopes it may obtain, space separated.
        scopes -> Text,
        /// Exact redirect URIs, a JSON array of strings.
        redirect_uris -> Text,
        /// When it was registered.
        create_time -> BigInt,
    }
}

diesel::table! {
    /// Users who sign in on the login page.
    users (tenant_id, user_id) {
        /// The user's tenant.
        tenant_id -> Text,
        /// The user id (token subject).
        user_id -> Text,
        /// Sign-in name, lower case, globally unique.
        username -> Text,
        /// Human-readable name.
        display_name -> Text,
        /// Argon2 hash of the password.
        password_hash -> Text,
        /// Scopes the user may grant, space separated.
        scopes -> Text,
        /// When the user was created.
        create_time -> BigInt,
    }
}

diesel::table! {
    /// Authorization codes awaiting exchange, by the SHA-256 hex of the code.
    authorization_codes (code_hash) {
        /// SHA-256 hex of the code.
        code_hash -> Text,
        /// The client it was issued to.
        client_id -> Text,
        /// The user's tenant.
        tenant_id -> Text,
        /// The user who signed in.
        user_id -> Text,
        /// The user's display name.
        display_name -> Text,
        /// The redirect URI of the authorization request.
        redirect_uri -> Text,
        /// The PKCE S256 challenge.
        code_challenge -> Text,
        /// Scopes granted, space separated.
        scopes -> Text,
        /// When it expires.
        expire_time -> BigInt,
    }
}

diesel::table! {
    /// Refresh tokens, by the SHA-256 hex of the token.
    refresh_tokens (token_hash) {
        /// SHA-256 hex of the token.
        token_hash -> Text,
        /// The rotation family.
        family_id -> Text,
        /// The client it was issued to.
        client_id -> Text,
        /// The subject's tenant.
        tenant_id -> Text,
        /// The subject (user id).
        subject -> Text,
        /// The subject's display name.
        display_name -> Text,
        /// Scopes granted, space separated.
        scopes -> Text,
        /// Whether it was exchanged for a successor.
        spent -> Bool,
        /// Whether its family was revoked.
        revoked -> Bool,
        /// When it expires.
        expire_time -> BigInt,
    }
}

diesel::table! {
    /// The keys access tokens are signed with.
    signing_keys (kid) {
        /// Key id.
        kid -> Text,
        /// JWS algorithm.
        algorithm -> Text,
        /// PKCS#8 DER private key, base64.
        private_key -> Text,
        /// Public JWK, JSON.
        public_jwk -> Text,
        /// When it was created.
        create_time -> BigInt,
        /// When a newer key took over; NULL while current.
        retire_time -> Nullable<BigInt>,
    }
}

diesel::table! {
    /// Long-running operations, owned by the tenant that polls them.
    operations (tenant_id, id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The last segment of the name.
        id -> Text,
        /// `{resource}/operations/{id}`.
        name -> Text,
        /// `metadata.type`, such as `rics.v1alpha.CreateTenant`.
        kind -> Text,
        /// `done`.
        done -> Bool,
        /// `error`, JSON; NULL unless it failed.
        error -> Nullable<Text>,
        /// `response`, JSON; NULL unless it succeeded.
        response -> Nullable<Text>,
        /// `metadata`, JSON.
        metadata -> Text,
        /// When it was created.
        create_time -> BigInt,
        /// When it last changed.
        update_time -> BigInt,
        /// When one-time secrets in `response` are removed; NULL when it holds none.
        redact_after -> Nullable<BigInt>,
    }
}

diesel::table! {
    /// Workspaces: the columns filters, orders and counts use, and the JSON body.
    workspaces (tenant_id, id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// Resource id.
        id -> Text,
        /// `uid` (UUID v4).
        uid -> Text,
        /// Version counter behind the etag.
        revision -> BigInt,
        /// `displayName`.
        display_name -> Text,
        /// `state`: OPEN or CLOSED.
        state -> Text,
        /// The resource JSON without the fields held in columns and `entities`.
        body -> Text,
        /// `createTime`.
        create_time -> BigInt,
        /// `updateTime`.
        update_time -> BigInt,
        /// `deleteTime`, when soft-deleted.
        delete_time -> Nullable<BigInt>,
        /// `purgeTime`, when soft-deleted.
        purge_time -> Nullable<BigInt>,
    }
}

diesel::table! {
    /// One row per entity of a workspace (`entities` filters, erasure).
    workspace_entities (tenant_id, workspace_id, entity) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The workspace.
        workspace_id -> Text,
        /// The entity's name, `entities/{entity}`.
        entity -> Text,
        /// Its place in the workspace's `entities`.
        position -> BigInt,
    }
}

diesel::table! {
    /// Notes about entities and workspaces.
    notes (tenant_id, parent, id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The parent's name, `entities/{e}` or `workspaces/{w}`.
        parent -> Text,
        /// The note id.
        id -> Text,
        /// `uid` (UUID v4).
        uid -> Text,
        /// Version counter behind the etag.
        revision -> BigInt,
        /// `content`.
        content -> Text,
        /// `authorId`: the author's subject.
        author_id -> Text,
        /// `author`: the author's display name.
        author -> Text,
        /// `isEdited`.
        is_edited -> Bool,
        /// `createTime`.
        create_time -> BigInt,
        /// `updateTime`.
        update_time -> BigInt,
    }
}

diesel::table! {
    /// Jobs of every family, with their inputs and latest result as JSON.
    jobs (tenant_id, id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// Job id.
        id -> Text,
        /// The family's collection id, such as `pepSanctionIndividualEntityJobs`.
        family -> Text,
        /// The entity the job is about.
        entity_id -> Text,
        /// `uid` (UUID v4).
        uid -> Text,
        /// Version counter behind the etag.
        revision -> BigInt,
        /// `state`.
        state -> Text,
        /// The family's inputs, JSON.
        input -> Text,
        /// The latest run's result, JSON; NULL before a run succeeded.
        result -> Nullable<Text>,
        /// `latestOperation`: the name of the latest run's operation.
        latest_operation -> Nullable<Text>,
        /// `createTime`.
        create_time -> BigInt,
        /// `updateTime`.
        update_time -> BigInt,
        /// The entity the run of a job created at `entities/-` made; NULL before, and
        /// for every other job.
        made_entity_id -> Nullable<Text>,        /// `deleteTime`: when a job of a family whose jobs may be deleted was
        /// soft-deleted; NULL when live.
        delete_time -> Nullable<BigInt>,
        /// `purgeTime`: when a soft-deleted job is purged; NULL when live.
        purge_time -> Nullable<BigInt>,
    }
}

diesel::table! {
    /// The job queue: one row per run, owned by the operation that reports it.
    job_tasks (tenant_id, id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The id of the run's operation.
        id -> Text,
        /// The job run.
        job_id -> Text,
        /// The job's family.
        family -> Text,
        /// The operation's name, `{job}/operations/{id}`.
        operation_name -> Text,
        /// How many times a worker claimed it.
        attempts -> BigInt,
        /// When it may be claimed: creation, end of a lease or of a backoff.
        run_after -> BigInt,
        /// The current claim's token; NULL when not claimed.
        claim -> Nullable<Text>,
        /// Whether the run finished (succeeded or failed for good).
        done -> Bool,
        /// The last attempt's error, for operators.
        last_error -> Nullable<Text>,
        /// When it was queued.
        create_time -> BigInt,
        /// When it last changed.
        update_time -> BigInt,
        /// What the `:run` gave for this run only, as JSON; NULL when nothing.
        run_input -> Nullable<Text>,
    }
}

diesel::table! {
    /// Alert types: seeded per tenant, read-only through the API.
    alert_types (tenant_id, id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// Resource id.
        id -> Text,
        /// `uid`: `{tenant}:{id}` for the default types.
        uid -> Text,
        /// Version counter behind the etag.
        revision -> BigInt,
        /// `displayName`.
        display_name -> Text,
        /// `description`.
        description -> Text,
        /// `defaultSeverity`.
        default_severity -> Text,
        /// `createTime`.
        create_time -> BigInt,
        /// `updateTime`.
        update_time -> BigInt,
    }
}

diesel::table! {
    /// Alerts: the columns filters, orders and counts use, and the JSON body.
    alerts (tenant_id, id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// Resource id.
        id -> Text,
        /// `uid` (UUID v4).
        uid -> Text,
        /// Version counter behind the etag.
        revision -> BigInt,
        /// `alertType`, `alertTypes/{alertType}`.
        alert_type -> Text,
        /// `workspace`, `workspaces/{workspace}`; empty when there is none.
        workspace -> Text,
        /// `severity`.
        severity -> Text,
        /// `state`: ACTIVE, ACKNOWLEDGED or RESOLVED.
        state -> Text,
        /// The resource JSON without the fields held in columns and `entities`.
        body -> Text,
        /// `createTime`.
        create_time -> BigInt,
        /// `updateTime`.
        update_time -> BigInt,
        /// `acknowledgeTime`, once acknowledged.
        acknowledge_time -> Nullable<BigInt>,
        /// `deleteTime`, when soft-deleted.
        delete_time -> Nullable<BigInt>,
        /// `purgeTime`, when soft-deleted.
        purge_time -> Nullable<BigInt>,
        /// `resolveTime`, once resolved.
        resolve_time -> Nullable<BigInt>,
        /// `disposition`, once resolved.
        disposition -> Nullable<Text>,
    }
}

diesel::table! {
    /// One row per entity of an alert (`entities` filters, erasure).
    alert_entities (tenant_id, alert_id, entity) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The alert.
        alert_id -> Text,
        /// The entity's name, `entities/{entity}`.
        entity -> Text,
        /// Its place in the alert's `entities`.
        position -> BigInt,
    }
}

diesel::table! {
    /// Risk model versions: immutable, the model's JSON in `body`.
    risk_models (tenant_id, version) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The version, 1, 2, ... per tenant.
        version -> BigInt,
        /// `uid`.
        uid -> Text,
        /// The model's JSON without the column fields.
        body -> Text,
        /// `createTime`, microseconds since the Unix epoch.
        create_time -> BigInt,
    }
}

diesel::table! {
    /// Identity documents: the columns filters, orders and counts use, and the JSON
    /// body.
    documents (tenant_id, id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// Resource id.
        id -> Text,
        /// `uid` (UUID v4).
        uid -> Text,
        /// Version counter behind the etag.
        revision -> BigInt,
        /// `entity`, `entities/{entity}`.
        entity -> Text,
        /// `documentType`.
        document_type -> Text,
        /// `issuingCountry`, an ICAO 9303 code; empty when there is none.
        issuing_country -> Text,
        /// `expiryDate`, `YYYY-MM-DD`; NULL when there is none.
        expiry_date -> Nullable<Text>,
        /// The resource JSON without the fields held in columns.
        body -> Text,
        /// `createTime`.
        create_time -> BigInt,
        /// `updateTime`.
        update_time -> BigInt,
        /// `deleteTime`, when soft-deleted.
        delete_time -> Nullable<BigInt>,
        /// `purgeTime`, when soft-deleted.
        purge_time -> Nullable<BigInt>,
        /// `displayName`.
        display_name -> Text,
        /// How many trigrams the display name has (fuzzy ranking); -1 until the server
        /// writes the trigrams of a document recorded before display names.
        display_name_trigrams -> BigInt,
        /// `workspace`, `workspaces/{workspace}`; empty when there is none (the body
        /// holds it too).
        workspace -> Text,
    }
}

diesel::table! {
    /// One row per trigram of a document's display name (fuzzy `displayName:` filters).
    document_name_trigrams (tenant_id, document_id, trigram) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The document.
        document_id -> Text,
        /// The trigram.
        trigram -> Text,
    }
}

diesel::table! {
    /// Files of entities: their metadata; the content is in a `FileStore`.
    files (tenant_id, parent, id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The parent's name, `entities/{e}`.
        parent -> Text,
        /// The file id.
        id -> Text,
        /// `uid` (UUID v4), the key of the content.
        uid -> Text,
        /// Version counter behind the etag.
        revision -> BigInt,
        /// `displayName`.
        display_name -> Text,
        /// `contentType`, as sniffed.
        content_type -> Text,
        /// `sizeBytes`.
        size_bytes -> BigInt,
        /// `sha256`, lower-case hex.
        sha256 -> Text,
        /// `createTime`.
        create_time -> BigInt,
        /// `updateTime`.
        update_time -> BigInt,
        /// `deleteTime`, when soft-deleted.
        delete_time -> Nullable<BigInt>,
        /// `purgeTime`, when soft-deleted.
        purge_time -> Nullable<BigInt>,
    }
}

diesel::table! {
    /// Content to remove from its store: the ledger of `ContentRemovals`.
    file_content_removals (tenant_id, file_uid) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The uid of the file the content was written for.
        file_uid -> Text,
        /// When it is due for removal.
        due_time -> BigInt,
    }
}

diesel::table! {
    /// The content of files in the database store, in chunks.
    file_contents (tenant_id, file_uid, chunk) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The uid of the file.
        file_uid -> Text,
        /// The chunk's place, from 0.
        chunk -> BigInt,
        /// The chunk's bytes.
        data -> Binary,
    }
}

diesel::allow_tables_to_appear_in_same_query!(
    entities,
    entity_bodies,
    entity_tags,
    entity_external_ids,
    entity_relationships,
    idempotency_keys,
    events,
    workspaces,
    workspace_entities,
    notes,
    jobs,
    job_tasks,
    automation_executions,
    alert_types,
    alerts,
    alert_entities,
    documents,
    files,
    file_content_removals,
);

diesel::table! {
    /// Activity log types: the columns filters, orders and counts use, and the JSON
    /// body.
    activity_log_types (tenant_id, id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// Resource id.
        id -> Text,
        /// `uid` (UUID v4).
        uid -> Text,
        /// Version counter behind the etag.
        revision -> BigInt,
        /// `displayName`.
        display_name -> Text,
        /// How many trigrams the display name has (fuzzy ranking).
        display_name_trigrams -> BigInt,
        /// `activityType`; NULL when unset.
        activity_type -> Nullable<Text>,
        /// The resource JSON without the fields held in columns.
        body -> Text,
        /// `createTime`.
        create_time -> BigInt,
        /// `updateTime`.
        update_time -> BigInt,
        /// `deleteTime`, when soft-deleted.
        delete_time -> Nullable<BigInt>,
        /// `purgeTime`, when soft-deleted.
        purge_time -> Nullable<BigInt>,
    }
}

diesel::table! {
    /// One row per trigram of an activity log type's display name (fuzzy search).
    activity_log_type_name_trigrams (tenant_id, activity_log_type_id, trigram) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The activity log type.
        activity_log_type_id -> Text,
        /// The trigram.
        trigram -> Text,
    }
}

diesel::table! {
    /// Activity logs: the columns filters and orders use, and the JSON body.
    activity_logs (tenant_id, id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// Resource id.
        id -> Text,
        /// `uid` (UUID v4).
        uid -> Text,
        /// Version counter behind the etag.
        revision -> BigInt,
        /// `type`.
        activity_type -> Text,
        /// `activityLogType` (a resource name); '' when unset.
        activity_log_type -> Text,
        /// `source`.
        source -> Text,
        /// The resource JSON without the fields held in columns.
        body -> Text,
        /// `occurTime`.
        occur_time -> BigInt,
        /// `createTime`.
        create_time -> BigInt,
        /// `deleteTime`, when soft-deleted.
        delete_time -> Nullable<BigInt>,
        /// `purgeTime`, when soft-deleted.
        purge_time -> Nullable<BigInt>,
    }
}

diesel::table! {
    /// One row per entity an activity log names (`entityNames`).
    activity_log_entities (tenant_id, activity_log_id, entity_id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The activity log.
        activity_log_id -> Text,
        /// The entity.
        entity_id -> Text,
    }
}

diesel::table! {
    /// Form definitions: the columns filters, orders and counts use, and the JSON body
    /// (description and current schema).
    form_definitions (tenant_id, id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// Resource id.
        id -> Text,
        /// `uid` (UUID v4, or `{tenant}:{id}` for a seeded definition).
        uid -> Text,
        /// Version counter behind the etag.
        revision -> BigInt,
        /// `displayName`.
        display_name -> Text,
        /// `revisionId` of the current schema.
        revision_id -> Text,
        /// `revisionCreateTime` of the current schema.
        revision_create_time -> BigInt,
        /// The resource JSON without the fields held in columns.
        body -> Text,
        /// `createTime`.
        create_time -> BigInt,
        /// `updateTime`.
        update_time -> BigInt,
        /// `deleteTime`, when soft-deleted.
        delete_time -> Nullable<BigInt>,
        /// `purgeTime`, when soft-deleted.
        purge_time -> Nullable<BigInt>,
    }
}

diesel::table! {
    /// Every revision of a form definition's schema (AIP-162).
    form_definition_revisions (tenant_id, definition_id, revision_id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The definition.
        definition_id -> Text,
        /// `revisionId`.
        revision_id -> Text,
        /// The schema of the revision (JSON).
        form_schema -> Text,
        /// `revisionCreateTime`.
        create_time -> BigInt,
    }
}

diesel::table! {
    /// Forms: the columns filters, orders and counts use, and the JSON body (the
    /// response).
    forms (tenant_id, id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// Resource id.
        id -> Text,
        /// `uid` (UUID v4).
        uid -> Text,
        /// Version counter behind the etag.
        revision -> BigInt,
        /// `displayName`.
        display_name -> Text,
        /// `formDefinition`, `formDefinitions/{id}@{revisionId}`.
        form_definition -> Text,
        /// `entity`, `entities/{entity}`; empty when there is none.
        entity -> Text,
        /// `state`: DRAFT, SUBMITTED or EXPIRED, as stored (a DRAFT past its deadline
        /// reads EXPIRED).
        state -> Text,
        /// The resource JSON without the fields held in columns and `workspaces`.
        body -> Text,
        /// `createTime`.
        create_time -> BigInt,
        /// `updateTime`.
        update_time -> BigInt,
        /// `submitTime`, once submitted.
        submit_time -> Nullable<BigInt>,
        /// `expireTime`, when the form has a deadline.
        expire_time -> Nullable<BigInt>,
    }
}

diesel::table! {
    /// One row per workspace of a form, in order (`workspaces`).
    form_workspaces (tenant_id, form_id, workspace) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The form.
        form_id -> Text,
        /// The workspace's name.
        workspace -> Text,
        /// Its place in the form's list.
        position -> BigInt,
    }
}

diesel::allow_tables_to_appear_in_same_query!(
    form_definitions,
    form_definition_revisions,
    forms,
    form_workspaces,
);

diesel::table! {
    /// The dismissal memory of screening: one row per entity and list entry an analyst
    /// dismissed.
    screening_dismissals (tenant_id, entity_id, dataset, list_entry) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The entity the match was about.
        entity_id -> Text,
        /// The entry's dataset.
        dataset -> Text,
        /// The entry's id in its list.
        list_entry -> Text,
        /// SHA-256 of the entry as listed when dismissed.
        record_hash -> Text,
        /// The job whose match was dismissed.
        job -> Text,
        /// Who dismissed it.
        reviewer -> Text,
        /// When.
        dismiss_time -> BigInt,
    }
}

diesel::table! {
    /// Webhook endpoints: the columns filters, orders and counts use, the sealed
    /// signing secrets, and the JSON body.
    webhook_endpoints (tenant_id, id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// Resource id.
        id -> Text,
        /// `uid` (UUID v4).
        uid -> Text,
        /// Version counter behind the etag.
        revision -> BigInt,
        /// `url`.
        url -> Text,
        /// `state`: ENABLED or DISABLED.
        state -> Text,
        /// The signing secret, sealed with the operator's key.
        secret -> Text,
        /// The secret it replaced, sealed, while it still signs.
        previous_secret -> Nullable<Text>,
        /// When the previous secret stops signing.
        previous_secret_expire_time -> Nullable<BigInt>,
        /// The resource JSON without the fields held in columns.
        body -> Text,
        /// `createTime`.
        create_time -> BigInt,
        /// `updateTime`.
        update_time -> BigInt,
        /// `deleteTime`, when soft-deleted.
        delete_time -> Nullable<BigInt>,
        /// `purgeTime`, when soft-deleted.
        purge_time -> Nullable<BigInt>,
    }
}

diesel::table! {
    /// Automations: the columns filters, orders and counts use, and the JSON body
    /// (description, inputSchema, steps, builtIn).
    automations (tenant_id, id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// Resource id.
        id -> Text,
        /// `uid` (UUID v4, or `{tenant}:{id}` for a built-in automation).
        uid -> Text,
        /// Version counter behind the etag.
        revision -> BigInt,
        /// `displayName`.
        display_name -> Text,
        /// `revisionId` of the current definition.
        revision_id -> Text,
        /// `revisionCreateTime` of the current definition.
        revision_create_time -> BigInt,
        /// The resource JSON without the fields held in columns.
        body -> Text,
        /// `createTime`.
        create_time -> BigInt,
        /// `updateTime`.
        update_time -> BigInt,
        /// `deleteTime`, when soft-deleted.
        delete_time -> Nullable<BigInt>,
        /// `purgeTime`, when soft-deleted.
        purge_time -> Nullable<BigInt>,
    }
}

diesel::table! {
    /// Every revision of an automation's definition (AIP-162).
    automation_revisions (tenant_id, automation_id, revision_id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The automation.
        automation_id -> Text,
        /// `revisionId`.
        revision_id -> Text,
        /// Its `inputSchema` and `steps`, as JSON.
        definition -> Text,
        /// `revisionCreateTime`.
        create_time -> BigInt,
    }
}

diesel::allow_tables_to_appear_in_same_query!(automations, automation_revisions);

diesel::table! {
    /// Executions of automations: the columns lists filter and the queue's wake reads,
    /// and the whole record as JSON.
    automation_executions (tenant_id, id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// Execution id.
        id -> Text,
        /// The automation's id.
        automation_id -> Text,
        /// The entity its parameter `entity` names; NULL when none.
        entity_id -> Nullable<Text>,
        /// The form it awaits; NULL when none.
        awaited_form -> Nullable<Text>,
        /// `uid`.
        uid -> Text,
        /// Version counter behind the etag.
        revision -> BigInt,
        /// `state`.
        state -> Text,
        /// The execution record, JSON.
        body -> Text,
        /// `startTime`; NULL before its first step.
        start_time -> Nullable<BigInt>,
        /// `endTime`; NULL before it ended.
        end_time -> Nullable<BigInt>,
        /// `createTime`.
        create_time -> BigInt,
        /// `updateTime`.
        update_time -> BigInt,
    }
}

diesel::table! {
    /// Webhook deliveries: one per event and subscribed endpoint, queued with the event
    /// and claimed by workers with a lease.
    webhook_deliveries (tenant_id, endpoint_id, id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The endpoint delivered to.
        endpoint_id -> Text,
        /// The event's id: the stable `webhook-id`.
        id -> Text,
        /// The event's entity, for entity-scoped events.
        entity_id -> Nullable<Text>,
        /// What deliveries to one endpoint are ordered by: the entity, or the resource.
        ordering_key -> Text,
        /// The event type.
        event_type -> Text,
        /// The name of the resource the event is about.
        resource -> Text,
        /// PENDING, SUCCEEDED or FAILED.
        state -> Text,
        /// Attempts since it was queued or redelivered.
        tries -> BigInt,
        /// Every attempt, as a JSON array.
        attempts -> Text,
        /// When it may be claimed: queueing, end of a lease or of a backoff.
        run_after -> BigInt,
        /// The current claim's token; NULL when not claimed.
        claim -> Nullable<Text>,
        /// The event's time: the order of delivery.
        create_time -> BigInt,
        /// When it last changed.
        update_time -> BigInt,
        /// When it succeeded or failed for good; NULL while PENDING.
        finish_time -> Nullable<BigInt>,
        /// Where a delivery to a URL (endpoint id `-`) goes; NULL for an endpoint's.
        url -> Nullable<Text>,
    }
}

diesel::table! {
    /// Each tenant's webhook signing secret, for deliveries to URLs; made on first use.
    tenant_webhook_secrets (tenant_id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The current secret, sealed.
        secret -> Text,
        /// The secret it replaced, sealed, still signing until its expiry.
        previous_secret -> Nullable<Text>,
        /// When the previous secret stops signing.
        previous_secret_expire_time -> Nullable<BigInt>,
        /// When the first secret was made.
        create_time -> BigInt,
        /// When it was last rotated.
        update_time -> BigInt,
    }
}

diesel::table! {
    /// The version of each screening dataset the replicas last agreed on (ongoing
    /// monitoring): not a tenant's.
    screening_list_versions (dataset) {
        /// The dataset, such as `un_sc`.
        dataset -> Text,
        /// SHA-256 of the files it was loaded from.
        content_hash -> Text,
        /// The hash of each record's content, by record id, as a JSON object.
        record_hashes -> Text,
        /// When this version was stored.
        update_time -> BigInt,
    }
}

diesel::table! {
    /// The changes of the screening datasets, each recorded once: the delta's size.
    screening_list_changes (dataset, old_version, new_version) {
        /// The dataset.
        dataset -> Text,
        /// The content hash it had.
        old_version -> Text,
        /// The content hash it has.
        new_version -> Text,
        /// How many records were added.
        added -> BigInt,
        /// How many records changed.
        changed -> BigInt,
        /// How many records were removed.
        removed -> BigInt,
        /// When the change was recorded.
        change_time -> BigInt,
    }
}

diesel::table! {
    /// Identity verification sessions started with a provider.
    verification_sessions (tenant_id, id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The session id (a job run's operation id for a run's session).
        id -> Text,
        /// HOSTED_CAPTURE or TRUUTH.
        provider -> Text,
        /// The provider's own id of the session.
        provider_session_id -> Nullable<Text>,
        /// The entity verified, once named.
        entity_id -> Nullable<Text>,
        /// The job run's operation name, for a run's session.
        operation -> Nullable<Text>,
        /// The identity owner, as JSON.
        identity_owner -> Text,
        /// Whether the outcome fills the entity's missing details.
        enrich_entity -> Bool,
        /// Where the completion's event is also delivered.
        webhook_uri -> Nullable<Text>,
        /// ACTIVE or COMPLETED.
        state -> Text,
        /// The provider's final outcome, as JSON.
        outcome -> Nullable<Text>,
        /// The IDENTITY_CHECK activity log's name, once written.
        activity_log -> Nullable<Text>,
        /// When it started.
        create_time -> BigInt,
        /// When it stops taking evidence.
        expire_time -> BigInt,
        /// When its final callback arrived.
        complete_time -> Nullable<BigInt>,
    }
}

diesel::table! {
    /// Provider callbacks received, one per verification and status.
    verification_callbacks (tenant_id, verification_id, status) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The provider's id of the verification.
        verification_id -> Text,
        /// The status reported.
        status -> Text,
        /// The session it was for.
        session_id -> Text,
        /// When it arrived.
        receive_time -> BigInt,
        /// The body, as JSON.
        body -> Text,
    }
}

diesel::table! {
    /// Each tenant's Truuth callback secret (a shared Bearer secret), sealed.
    truuth_callback_secrets (tenant_id) {
        /// Owning tenant.
        tenant_id -> Text,
        /// The current secret, sealed.
        secret -> Text,
        /// The secret it replaced, sealed, still good until its expiry.
        previous_secret -> Nullable<Text>,
        /// When the previous secret stops being good.
        previous_secret_expire_time -> Nullable<BigInt>,
        /// When the first secret was made.
        create_time -> BigInt,
        /// When it was last rotated.
        update_time -> BigInt,
    }
}
