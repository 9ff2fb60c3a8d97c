// Generated from the handlers' schemas by `npm run console:types`: do not edit.

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness: the service answers.
         * @description No install code needed. 200 while the process serves requests.
         */
        get: operations["getHealthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This API's OpenAPI 3.1 document.
         * @description Generated from the route definitions; no install code needed. Integrators generate clients from it.
         */
        get: operations["getOpenApi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/schemas/node.yaml.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The node.yaml JSON Schema, without the install code.
         * @description The same document as GET /v1/installer/config/schema, at a stable address an editor can fetch: it holds nothing secret. Put `# yaml-language-server: $schema=https://<node>:9443/schemas/node.yaml.json` at the top of a node.yaml.
         */
        get: operations["getPublicNodeYamlSchema"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tls": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The certificate this API serves, without the install code.
         * @description Its SHA-256 fingerprint and expiry, to compare with the installer's banner before typing the install code into a page, or to pin. No install code needed: every TLS handshake discloses the certificate anyway.
         */
        get: operations["getTls"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The web console.
         * @description The installer's web front end, embedded in the installer: this page with /console.js and /console.css. No install code is needed to load it; it asks for the code and then calls the public /v1/installer API with it.
         */
        get: operations["getConsole"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console.js": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The web console's script.
         * @description Plain JavaScript with no dependencies; no install code needed.
         */
        get: operations["getConsoleScript"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console.css": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The web console's stylesheet.
         * @description No install code needed.
         */
        get: operations["getConsoleStyles"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/installer/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Where the install stands.
         * @description The phase (configuring, installing, done, failed), the installer's version, the draft's install mode and profile, whether the current draft config is valid, and what became of a node.yaml stage 1 brought for an unattended install (unattended).
         */
        get: operations["getStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/installer/options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What this node can be installed as.
         * @description Every install mode with whether it is available (and why not), the host inventory (interfaces, disks, memory, CPUs) and defaults.
         */
        get: operations["getOptions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/installer/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The draft config.
         * @description The draft as stored (secrets included: this is the authorized view), whether it validates, every field error, and its ETag for If-Match.
         */
        get: operations["getConfig"];
        /**
         * Replace the draft.
         * @description JSON replaces it with a structured draft. A raw node.yaml has its own operation, PUT /v1/installer/config/node.yaml; this one takes a node.yaml as application/yaml or text/yaml too, as it did before that operation existed. The draft is stored even when it does not validate (see errors). Only an empty body, or JSON that does not parse or is not an object, is refused. Honours If-Match; a change whose draft is already the one sent is answered 200 whatever If-Match says (a retry whose answer was lost). 409 INSTALL_RUNNING while an attempt runs (it installs the draft it validated), 409 ALREADY_INSTALLED once the node is installed.
         */
        put: operations["putConfig"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change part of a structured draft.
         * @description A JSON merge patch (RFC 7396) on a structured draft: a member replaces, null removes, objects merge. application/json is accepted too. Honours If-Match, always: a patch with a stale one would apply to a draft its client has not seen. A raw node.yaml draft is replaced with PUT instead. 409 INSTALL_RUNNING while an attempt runs, 409 ALREADY_INSTALLED once the node is installed.
         */
        patch: operations["patchConfig"];
        trace?: never;
    };
    "/v1/installer/config/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Validate a config without storing it.
         * @description The same validator as the draft and POST /install, for a structured draft (JSON) or a raw node.yaml. A node.yaml that does not parse is answered as PUT would store it: valid false, its parse error a field error with line and column, no mode. The stored draft is not touched.
         */
        post: operations["validateConfig"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/installer/config/node.yaml": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The node.yaml the draft renders to.
         * @description What the install's write-config step would write: a structured draft rendered to node.yaml, or a raw node.yaml draft as it is but for its OSD disks, named by their stable /dev/disk/by-id path. 422 while the draft does not validate.
         */
        get: operations["getNodeYaml"];
        /**
         * Replace the draft with a raw node.yaml.
         * @description The node.yaml is kept verbatim, comments included, and stored even when it does not validate (see errors) or does not parse: a parse error is a field error with line and column, and /status has no mode. Only an empty body is refused. Honours If-Match; a change whose draft is already the one sent is answered 200 whatever If-Match says (a retry whose answer was lost). 409 INSTALL_RUNNING while an attempt runs (it installs the draft it validated), 409 ALREADY_INSTALLED once the node is installed. GET on this path gives the node.yaml the install writes.
         */
        put: operations["putNodeYaml"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/installer/config/review": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What an install of the draft writes and erases.
         * @description For a person to confirm before POST /install: the node.yaml the install writes (secrets redacted) and the disks it erases, each with its size, model, serial and stable path. Its ETag is the draft's. 422 while the draft does not validate.
         */
        get: operations["getInstallReview"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/installer/config/schema": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The node.yaml JSON Schema.
         * @description For editors to check node.yaml as it is written; generated from the same definition as the validator (also `node installer.js schema`).
         */
        get: operations["getNodeYamlSchema"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/installer/install": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Install the draft.
         * @description Starts an install attempt: preflight → write node.yaml → firstboot → wait until the cloud reports READY. 422 INVALID_CONFIG with the field errors when the draft does not validate; 409 INSTALL_BLOCKED with the blockers; 409 INSTALL_RUNNING while an attempt runs; 409 ALREADY_INSTALLED after one succeeded. With If-Match (the ETag of GET /config or GET /config/review), 412 PRECONDITION_FAILED when the draft changed since: what is installed is what was reviewed. It takes no body: one sent is not read as input (over 1 MiB it is refused, 413).
         */
        post: operations["startInstall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/installer/install/recheck-readiness": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Wait for READY again, without running the install.
         * @description Starts a new attempt that runs only the readiness wait: firstboot is not run, node.yaml is not written, and the draft is not touched. For an install whose last attempt failed at the readiness step (the cloud was not READY within the wait; a slow Ceph bootstrap or image pull is enough), which is the case when the verdict and the report say recheckReadiness. The attempt writes the same events, verdict and report as any other; its only step is readiness. 409 RECHECK_NOT_APPLICABLE when the last attempt did not fail at the readiness step, 409 INSTALL_RUNNING while an attempt runs.
         */
        post: operations["recheckReadiness"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/installer/install/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An attempt's events, as JSON or a live stream.
         * @description Events with seq > after, of the latest attempt or ?attempt=N, oldest first, at most 1000 a page. With Accept: text/event-stream (preferred over application/json by its q-value, as RFC 9110 weighs them), a Server-Sent Events stream: the replay, then live events as they happen (id = seq; resume with Last-Event-ID; comment lines as heartbeats); it closes after attempt.finished, or, when the installer stops first, after the comment `: installer stopping` (follow again once it answers).
         */
        get: operations["getEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/installer/install/verdict": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * How an attempt ended and what to do next.
         * @description The verdict of the latest attempt, or of ?attempt=N. 404 for an unknown attempt; 409 INSTALL_RUNNING while it still runs.
         */
        get: operations["getVerdict"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/installer/install/report": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Everything about an attempt, for the record.
         * @description The verdict, every step with times and outcome, the redacted config, the host inventory, the payload version, firstboot's output tail and the readiness history; of the latest attempt or ?attempt=N.
         */
        get: operations["getReport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/installer/install/attempts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every install attempt, oldest first.
         * @description Each attempt's number, kind (install or recheck-readiness), who started it, its state, the step it is at or ended at, its times and, once finished, its verdict. Events and reports are per attempt: pass its number as ?attempt=N.
         */
        get: operations["listAttempts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/installer/cluster/join-check": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check the cluster a join draft joins, changing nothing.
         * @description Runs the join check of a hyperconverged-join install's preflight on the draft's cluster fields, now: TLS to the join address within 5 s, the certificate against the token's fingerprint (before any byte is sent; the token never leaves the node), cluster name, release and clock from GET /v1/cluster/join-info, and the token's secret proven by an HMAC over a fresh nonce. Every check is reported, each failure with its code and what to fix. Changes nothing on this node or the cluster. 422 INVALID_CONFIG when the draft is not a join draft or its join address or token is missing or malformed. It takes no body (it checks the draft): one sent is not read as input (over 1 MiB it is refused, 413).
         */
        post: operations["checkCluster"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/installer/cluster/join-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The token joining nodes use, from the installed init node.
         * @description On an installed hyperconverged-init node: the join token (STRATUM1:<SHA-256 of the cloud API's certificate>:<secret>), the address joins use (the vip), the cluster's name and release. Put token and joinAddress into each joining node's cluster.joinToken and cluster.joinAddress. 404 NOT_FOUND on a node of another mode; 409 NOT_INSTALLED before an install attempt succeeded.
         */
        get: operations["getJoinToken"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/installer/support-bundle": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One .tar.gz that tells this node's whole story, with no secret in it.
         * @description manifest.json (versions, when and how it was made, host name, phase, every file with its size and SHA-256, what was left out and why), status.json, the draft as node.yaml, each attempt's steps, verdict, report and events (NDJSON), host facts, payload verification, the last readiness checks, the service's recent log, the notices of its last start and any store kept aside as corrupt. Every secret (install code, join token and its secret, password hash, TLS private key) is replaced by a marker naming it. At most 10 MB: the oldest events of the oldest attempts are left out first, each cut named in the manifest. Streamed while the service goes on answering; `node installer.js support-bundle --state-dir DIR` makes the same file with the service down.
         */
        get: operations["getSupportBundle"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Health: {
            /** @enum {boolean} */
            ok: true;
            version: string;
        };
        /** @description RFC 7807 problem details, the control plane's shape. */
        Problem: {
            type: string;
            title: string;
            status: number;
            detail?: string;
            /**
             * @example INVALID_REQUEST
             * @example UNAUTHORIZED
             * @example NOT_FOUND
             * @example INSTALL_RUNNING
             * @example ALREADY_INSTALLED
             * @example INSTALL_BLOCKED
             * @example RECHECK_NOT_APPLICABLE
             * @example NOT_INSTALLED
             * @example PRECONDITION_FAILED
             * @example BODY_TOO_LARGE
             * @example UNSUPPORTED_MEDIA_TYPE
             * @example INVALID_CONFIG
             * @example TOO_MANY_ATTEMPTS
             * @example INTERNAL
             * @example INSUFFICIENT_STORAGE
             */
            code: string;
            requestId: string;
            /** @description Field errors, for INVALID_CONFIG. */
            errors?: components["schemas"]["FieldError"][];
            /** @description Why the install is refused, for INSTALL_BLOCKED. */
            blockers?: components["schemas"]["Blocker"][];
        };
        FieldError: {
            /** @description The structured field (network.floatingIpCidrs[1]); empty for the whole config. For a raw YAML draft, the node.yaml key. */
            field: string;
            message: string;
            /** @description How to fix it, e.g. the nearest known key for a typo. */
            hint?: string;
            /** @description 1-based line in a raw YAML draft. */
            line?: number;
            /** @description 1-based column in a raw YAML draft. */
            column?: number;
        };
        Blocker: {
            /** @description Stable identifier, e.g. PAYLOAD_NOT_LOADED. */
            code: string;
            /** @description What is wrong and how to fix it, for a person. */
            detail: string;
            /** @description PAYLOAD_VERIFYING only, while the checksums are being read (absent while the payload is still changing and its check has not begun): how far the check is, for a progress bar. */
            progress?: {
                /** @description Bytes of the payload's images checked so far. */
                doneBytes: number;
                /** @description Bytes to check in all; 0 when the release lists no images. */
                totalBytes: number;
            };
        };
        Tls: {
            /**
             * @description SHA-256 of the certificate, uppercase colon-separated hex, as the banner prints it.
             * @example 9F:86:D0:81:…
             */
            sha256: string;
            /**
             * Format: date-time
             * @description When the certificate expires.
             */
            notAfter: string;
        };
        /** @description mode is the draft's install mode: its mode, or single-node for a structured draft with none; for a raw node.yaml, the install mode its mode resolves to. Absent when a raw node.yaml does not parse or names no mode the installer knows. */
        Status: {
            phase: components["schemas"]["Phase"];
            /** @description The installer's version line. */
            version: string;
            /**
             * @description How this node is installed: the first answer of stage 2. Each mode is a deployment profile of the release model and the node's part in it.
             *
             *     - single-node: one node runs everything (profile single-node; node.yaml mode: single-node).
             *     - hyperconverged-init: the first node of a hyperconverged cluster, the one that founds it ("HA init"; node.yaml mode: ha-init).
             *     - hyperconverged-join: a node that joins a hyperconverged cluster ("HA join"; node.yaml mode: join).
             *     - disaggregated-control-plane: a control-plane-only node that compute and storage nodes join later (profile disaggregated, a preview whose design is open,).
             *
             *     GET /v1/installer/options says which are available; the others are refused at mode, with the reason.
             * @enum {string}
             */
            mode?: "single-node" | "hyperconverged-init" | "hyperconverged-join" | "disaggregated-control-plane";
            /**
             * @description The draft's profile: the one its install mode installs (single-node for a draft with no mode, and for a raw node.yaml whose mode cannot be read).
             * @example single-node
             * @example hyperconverged
             * @example disaggregated
             */
            profile: string;
            /** @description The draft's hostname, or the machine's own while the draft has none. */
            hostname: string;
            /** @description Where this API is served. */
            url: string;
            /** @description Whether the current draft validates. */
            configValid: boolean;
            /** @description Install attempts started so far (0 before the first). */
            attempt: number;
            /**
             * @description The step running now, while installing.
             * @example preflight
             * @example write-config
             * @example firstboot
             * @example readiness
             */
            step?: string;
            /**
             * Format: date-time
             * @description When the latest attempt started.
             */
            startedAt?: string;
            /**
             * Format: date-time
             * @description When the latest attempt finished.
             */
            finishedAt?: string;
            /** @description Why POST /install would be refused right now, whatever the config says: for example, the offline payload did not load (PAYLOAD_NOT_LOADED). Empty or absent when an install can start. A front end shows these before offering the install. */
            blockers?: components["schemas"]["Blocker"][];
            unattended?: components["schemas"]["Unattended"];
        };
        /**
         * @description configuring until an install starts; installing while one runs; done after one succeeded; failed after the latest one failed.
         * @enum {string}
         */
        Phase: "configuring" | "installing" | "done" | "failed";
        /** @description An unattended stage 2. Stage 1 found a node.yaml beside install.yaml on the install medium and left it on the node; the service took it at its first start, made it the draft (source yaml), removed the file, and either started the install by itself or left it waiting. Absent when there was no such file. It records what became of the file. Only a blocked one that waits (autoStart) changes later: once its blockers clear it is decided again as at the first start, so state becomes started with attempt (or invalid, should the machine no longer accept it); and a person who takes the draft over ends the wait. A later draft or install is the person's. */
        Unattended: {
            /**
             * @description started: it validated and the service started install attempt `attempt` with no install code (at once, or once its blockers cleared); follow it like any install. invalid: it did not validate (errors), so nothing started; it is the draft, to fix and install. blocked: it validated, but blockers refused the install, so nothing started; it is the draft. While autoStart is true it starts by itself once they clear; otherwise a person installs it.
             * @enum {string}
             */
            state: "started" | "invalid" | "blocked";
            /** @description blocked only. True while the install still starts by itself once the blockers clear: nobody has changed the draft or started an install since the file was taken. A PUT of the config or a started install hands the draft to the person and turns this off for good. Absent otherwise. */
            autoStart?: boolean;
            /** @description Where stage 1 found it, e.g. node.yaml on the partition labeled STRATUM. Empty when the node's install record does not say. */
            origin: string;
            /**
             * Format: date-time
             * @description When the service took it.
             */
            takenAt: string;
            /** @description The install attempt it started (started only). */
            attempt?: number;
            /** @description Why it did not validate (invalid only), by node.yaml key. */
            errors?: components["schemas"]["FieldError"][];
        };
        Options: {
            modes: components["schemas"]["ModeOption"][];
            host: components["schemas"]["HostInventory"];
            /** @description The loaded release's version; null while no payload is loaded. */
            release: string | null;
            /** @description What a front end pre-fills. */
            defaults: {
                mode: components["schemas"]["InstallMode"];
                hostname: string;
                network: {
                    interface?: string;
                };
            };
        };
        ModeOption: {
            mode: components["schemas"]["InstallMode"];
            /** @enum {string} */
            profile: "single-node" | "hyperconverged" | "disaggregated";
            /**
             * @description The mode's name in node.yaml.
             * @enum {string}
             */
            nodeYamlMode: "single-node" | "ha-init" | "join" | "control-plane";
            available: boolean;
            /** @description Why the mode is refused, when it is. */
            reason?: string;
            /** @description A preview profile whose design is open. */
            preview: boolean;
        };
        /**
         * @description How this node is installed: the first answer of stage 2. Each mode is a deployment profile of the release model and the node's part in it.
         *
         *     - single-node: one node runs everything (profile single-node; node.yaml mode: single-node).
         *     - hyperconverged-init: the first node of a hyperconverged cluster, the one that founds it ("HA init"; node.yaml mode: ha-init).
         *     - hyperconverged-join: a node that joins a hyperconverged cluster ("HA join"; node.yaml mode: join).
         *     - disaggregated-control-plane: a control-plane-only node that compute and storage nodes join later (profile disaggregated, a preview whose design is open,).
         *
         *     GET /v1/installer/options says which are available; the others are refused at mode, with the reason.
         * @enum {string}
         */
        InstallMode: "single-node" | "hyperconverged-init" | "hyperconverged-join" | "disaggregated-control-plane";
        /** @description The node's network interfaces, disks, memory and CPUs. */
        HostInventory: {
            hostname: string;
            interfaces: {
                name: string;
                mac: string;
                up: boolean;
                addresses: string[];
            }[];
            disks: components["schemas"]["HostDisk"][];
            memoryBytes: number;
            cpuCount: number;
        };
        /** @description A disk of the host. A draft may name it by path, by any of its byId paths or their link names (wwn-0x…), by its WWN or by its serial. */
        HostDisk: {
            name: string;
            /** @description Kernel device path, e.g. /dev/sdb: it may name another disk after a reboot or a disk swap. */
            path: string;
            /** @description The disk's stable paths under /dev/disk/by-id, the preferred first (its wwn- link when it has one): node.yaml's storage.osd_devices gets that one. */
            byId?: string[];
            /** @description World Wide Name as udev spells it, e.g. 0x5002538f4312abcd (NVMe: eui.…). */
            wwn?: string;
            /** @description The disk's serial number. */
            serial?: string;
            sizeBytes: number;
            model: string;
            rotational: boolean;
            inUse: boolean;
            usage?: string;
        };
        DraftView: {
            /**
             * @description structured: a JSON draft (config); yaml: a raw node.yaml (yaml).
             * @enum {string}
             */
            source: "structured" | "yaml";
            config?: components["schemas"]["StructuredDraft"];
            /** @description The raw node.yaml text, for source yaml. */
            yaml?: string;
            /** @description Whether the draft validates. */
            valid: boolean;
            /** @description Every problem at once; empty when valid. */
            errors: components["schemas"]["FieldError"][];
            /**
             * Format: date-time
             * @description When the draft last changed; null before the first PUT.
             */
            updatedAt: string | null;
        };
        /** @description A structured draft (camelCase; every field optional in a draft): a Draft (mode, hostname, timezone, network {interface, address, gateway, dns, ntp, vip, floatingIpCidrs}, storage {osdDevices}, cluster {name, joinAddress, joinToken}, admin {sshAuthorizedKeys, passwordHash}) once it validates, any object while drafting: it is stored even when it does not validate. */
        StructuredDraft: components["schemas"]["Draft"] | {
            [key: string]: unknown;
        };
        /** @description The install configuration; every field is optional while drafting, the mode decides which are required to install. */
        Draft: {
            /**
             * @description How this node is installed; GET /v1/installer/options says which modes are available.
             * @example single-node
             * @enum {string}
             */
            mode?: "single-node" | "hyperconverged-init" | "hyperconverged-join" | "disaggregated-control-plane";
            /**
             * @description The node's hostname (RFC 1123).
             * @example node-01
             */
            hostname?: string;
            /**
             * @description IANA time zone name.
             * @example Europe/Berlin
             */
            timezone?: string;
            /** @description How the node is reached and reaches out. */
            network?: {
                /**
                 * @description The network interface the node is managed through.
                 * @example eno1
                 */
                interface?: string;
                /**
                 * @description The node's management address with its prefix length (CIDR); its subnet is the management subnet.
                 * @example 10.20.0.11/24
                 */
                address?: string;
                /**
                 * @description The default gateway's IP address, inside the management subnet.
                 * @example 10.20.0.1
                 */
                gateway?: string;
                /**
                 * @description DNS server IP addresses, in order of preference.
                 * @example [
                 *       "10.20.0.2",
                 *       "10.20.0.3"
                 *     ]
                 */
                dns?: string[];
                /**
                 * @description NTP servers, as hostnames or IP addresses.
                 * @example [
                 *       "ntp.example.net"
                 *     ]
                 */
                ntp?: string[];
                /**
                 * @description The cluster's virtual IP address (hyperconverged): inside the management subnet, not the node's own.
                 * @example 10.20.0.10
                 */
                vip?: string;
                /**
                 * @description Address ranges (CIDR) handed out as floating IPs; they must not overlap each other or the management subnet.
                 * @example [
                 *       "203.0.113.0/24"
                 *     ]
                 */
                floatingIpCidrs?: string[];
            };
            /** @description Disks for Ceph. */
            storage?: {
                /**
                 * @description Whole unused disks that Ceph takes for storage (erased at install), each by device path (/dev/sdb), stable path (/dev/disk/by-id/…), WWN (wwn-0x… or 0x…) or serial; the node.yaml written names each by its stable path.
                 * @example [
                 *       "/dev/disk/by-id/wwn-0x5002538f4312abcd",
                 *       "/dev/sdc"
                 *     ]
                 */
                osdDevices?: string[];
            };
            /** @description The cluster this node founds or joins. */
            cluster?: {
                /**
                 * @description The name of the cluster this node founds (hyperconverged-init).
                 * @example rack-a
                 */
                name?: string;
                /**
                 * @description Where the founding node's cloud API is reached (hyperconverged-join): an IP, IP:port or hostname, port 8443 unless it names one; the cluster's vip, as GET /v1/installer/cluster/join-token on the init node's installer gives it.
                 * @example 10.20.0.10
                 */
                joinAddress?: string;
                /**
                 * @description The token the cluster issued for this node to join (secret): STRATUM1:<fingerprint>:<secret>, from GET /v1/installer/cluster/join-token on the init node's installer.
                 * @example STRATUM1:08de40f5723ef2bb907dede5c26f729a5364655ab5ae5c874f412dae24be058b:ekv9SqFMe9Lna6oyTRN8xREnTRLu7kloRmVhvIArWcA
                 */
                joinToken?: string;
            };
            /** @description Who may log in to the node: SSH keys, a password hash, or both. */
            admin?: {
                /**
                 * @description SSH public keys (one authorized_keys line each) allowed to log in as the admin user.
                 * @example [
                 *       "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0wmN/Cr3JXqmLW7u+g9pTh+wyqDHpSQEIQczXkVx9q ops@example"
                 *     ]
                 */
                sshAuthorizedKeys?: string[];
                /**
                 * @description The admin user's password as a crypt hash (secret), e.g. from `openssl passwd -6` or `mkpasswd -m yescrypt`.
                 * @example $6$rackAsalt$LgudYTzfY4Dbf9U2beanoM/BGu/Yfruj/GA4sxsk.UKBzX9zw3c2S92a0asXfwYo65o2O6/xy.o6rW8/JUiTe0
                 */
                passwordHash?: string;
            };
        };
        Validation: {
            valid: boolean;
            /** @description Every problem at once; empty when valid. */
            errors: components["schemas"]["FieldError"][];
            mode?: components["schemas"]["InstallMode"];
            /** @enum {string} */
            profile: "single-node" | "hyperconverged" | "disaggregated";
        };
        InstallReview: {
            /** @description The node.yaml the install writes, OSD disks by their stable path, secrets shown as "[redacted]" (an ha-init node's generated cluster.join_token is added when written). */
            nodeYaml: string;
            /** @description The disks Ceph erases (storage.osdDevices), as the host reports them; empty when the install erases none. */
            erases: components["schemas"]["HostDisk"][];
        };
        AttemptStarted: {
            attempt: number;
            phase: components["schemas"]["Phase"];
            /** @description Where to follow the attempt (JSON, or SSE with Accept: text/event-stream). */
            eventsUrl: string;
        };
        EventsPage: {
            attempt: number;
            events: components["schemas"]["InstallEvent"][];
            /** @description The attempt has finished and these are its last events. */
            finished: boolean;
            /** @description More events follow: ask again with after = the last seq. */
            more: boolean;
        };
        InstallEvent: {
            /** @description Monotonic within the attempt; the SSE id. */
            seq: number;
            attempt: number;
            /** Format: date-time */
            time: string;
            /** @enum {string} */
            type: "attempt.started" | "step.started" | "step.log" | "step.progress" | "step.finished" | "readiness.poll" | "attempt.finished";
            /**
             * @example preflight
             * @example write-config
             * @example firstboot
             * @example readiness
             */
            step?: string;
            /** @enum {string} */
            level: "info" | "warn" | "error";
            message: string;
            /** @description What the event carries besides its message, by type: attempt.started {kind, startedBy}; step.started of readiness {deadline} (when the wait ends, ISO time); step.log {stream, truncatedBytes?}; step.progress {check} (a join check), {stopped, killedAfterMs?, survived?} (what firstboot left running; `survived`: those SIGKILL has not ended yet, each with its process state) or {limit: {lines, bytes}} (firstboot's output reached the 500,000 lines or 64 MiB of events an attempt keeps) or {notKept: {lines, bytes}} (what it printed past that, said once its output ended, perhaps after its step.finished); step.finished {outcome, durationMs}; readiness.poll {state, detail?, checks?}; attempt.finished {verdict}. */
            data?: {
                [key: string]: unknown;
            };
        };
        Verdict: {
            attempt: number;
            /** @enum {string} */
            kind: "install" | "recheck-readiness";
            /** @enum {string} */
            outcome: "succeeded" | "failed";
            /**
             * @description The step it ended at (failed at, or the last one).
             * @example preflight
             * @example write-config
             * @example firstboot
             * @example readiness
             */
            step: string | null;
            /**
             * @description Why it failed; null when it succeeded.
             * @example PREFLIGHT_FAILED
             * @example INSTALL_BLOCKED
             * @example WRITE_FAILED
             * @example FIRSTBOOT_FAILED
             * @example READINESS_TIMEOUT
             * @example INTERRUPTED
             * @example STATE_WRITE_FAILED
             */
            code: string | null;
            /** @description What happened and what to do, for a person. */
            message: string;
            /**
             * @description none: nothing to do. recheckReadiness: it failed at readiness (the cloud was not READY in time): POST /install/recheck-readiness. fixConfig: change the draft, then install. retryInstall: fix the node, then POST /install again. clearBlockers: clear the blockers in /status, then install.
             * @enum {string}
             */
            next: "none" | "recheckReadiness" | "fixConfig" | "retryInstall" | "clearBlockers";
            /** @description When a join check failed preflight: every check, each failure with its code (SPEC §6). */
            checks?: components["schemas"]["JoinCheck"][];
        };
        JoinCheck: {
            /**
             * @description reachable (TLS within 5 s), fingerprint (the certificate is the token's), join-info, cluster, release, clock (skew ≤ 30 s), token (HMAC proof accepted); in the order they run.
             * @enum {string}
             */
            name: "reachable" | "fingerprint" | "join-info" | "cluster" | "release" | "clock" | "token";
            ok: boolean;
            /**
             * @description Set on a check that ran and failed. A check an earlier failure left nothing to ask is ok: false without a code.
             * @enum {string}
             */
            code?: "JOIN_UNREACHABLE" | "JOIN_FINGERPRINT_MISMATCH" | "JOIN_CLUSTER_MISMATCH" | "JOIN_RELEASE_MISMATCH" | "JOIN_CLOCK_SKEW" | "JOIN_TOKEN_REFUSED";
            /** @description What was found and, on a failure, what to fix. */
            detail: string;
        };
        Report: {
            attempt: number;
            /** @enum {string} */
            kind: "install" | "recheck-readiness";
            /** @enum {string} */
            startedBy: "person" | "unattended";
            /** @enum {string} */
            state: "running" | "succeeded" | "failed";
            /**
             * @example preflight
             * @example write-config
             * @example firstboot
             * @example readiness
             */
            step: string | null;
            /** Format: date-time */
            startedAt: string;
            /** Format: date-time */
            finishedAt?: string;
            verdict?: components["schemas"]["Verdict"];
            /** @description Every step with its times and outcome. */
            steps: components["schemas"]["StepRecord"][];
            /** @description The draft as it was installed, secrets redacted (a recheck: what its install installed, whatever the draft says since). */
            config: {
                /** @enum {string} */
                source: "structured" | "yaml";
                config?: {
                    [key: string]: unknown;
                };
                yaml?: string;
            };
            host: {
                hostname: string;
                interfaces: {
                    name: string;
                    mac: string;
                    up: boolean;
                    addresses: string[];
                }[];
                disks: {
                    name: string;
                    /** @description Kernel device path, e.g. /dev/sdb: it may name another disk after a reboot or a disk swap. */
                    path: string;
                    /** @description The disk's stable paths under /dev/disk/by-id, the preferred first (its wwn- link when it has one): node.yaml's storage.osd_devices gets that one. */
                    byId?: string[];
                    /** @description World Wide Name as udev spells it, e.g. 0x5002538f4312abcd (NVMe: eui.…). */
                    wwn?: string;
                    /** @description The disk's serial number. */
                    serial?: string;
                    sizeBytes: number;
                    model: string;
                    rotational: boolean;
                    inUse: boolean;
                    usage?: string;
                }[];
                memoryBytes: number;
                cpuCount: number;
            };
            /** @description The release of the payload the attempt ran with. */
            payloadVersion: string | null;
            nodeYamlPath?: string;
            /** @description The last lines firstboot printed, secrets redacted. */
            firstbootTail: string[];
            /** @description Every change of the cloud's readiness state or checks, oldest first. */
            readinessHistory: {
                /** Format: date-time */
                time: string;
                state: string;
                detail?: string;
                checks?: {
                    name: string;
                    status: string;
                    detail?: string;
                }[];
            }[];
            /** @description The join check a hyperconverged-join preflight ran: every check in order. */
            joinCheck?: components["schemas"]["JoinCheck"][];
            /** @description How to reach what the attempt installed, from off the node (a recheck: what its install installed). Absent for an attempt recorded before it was kept. */
            endpoints?: {
                /**
                 * @description The cloud's API: a join node's cluster at its join address; otherwise the readiness endpoint's scheme and port at the VIP, or at the node's management address.
                 * @example https://10.20.0.10:8443
                 */
                cloudApi?: string;
                /**
                 * @description The node's management address, for SSH with an admin key.
                 * @example 10.20.0.11
                 */
                ssh?: string;
            };
        };
        StepRecord: {
            /**
             * @example preflight
             * @example write-config
             * @example firstboot
             * @example readiness
             */
            step: string;
            /** @enum {string} */
            state: "running" | "succeeded" | "failed";
            /** Format: date-time */
            startedAt: string;
            /** Format: date-time */
            finishedAt?: string;
            message?: string;
            /**
             * Format: date-time
             * @description readiness only: when the wait ends (--readiness-timeout after the step started); the step fails with READINESS_TIMEOUT when the cloud is not READY by then.
             */
            deadline?: string;
        };
        Attempts: {
            attempts: components["schemas"]["AttemptSummary"][];
        };
        AttemptSummary: {
            attempt: number;
            /** @enum {string} */
            kind: "install" | "recheck-readiness";
            /** @enum {string} */
            startedBy: "person" | "unattended";
            /** @enum {string} */
            state: "running" | "succeeded" | "failed";
            /**
             * @example preflight
             * @example write-config
             * @example firstboot
             * @example readiness
             */
            step: string | null;
            /** Format: date-time */
            startedAt: string;
            /** Format: date-time */
            finishedAt?: string;
            verdict?: components["schemas"]["Verdict"];
        };
        JoinCheckResult: {
            /** @description Every check passed: the node can join. */
            ok: boolean;
            checks: components["schemas"]["JoinCheck"][];
        };
        JoinToken: {
            /** @description STRATUM1:<SHA-256 of the cloud API certificate>:<secret>: the joining nodes' cluster.joinToken. A secret: share it as you would a password. */
            token: string;
            /** @description The joining nodes' cluster.joinAddress: the cluster's vip (port 8443). */
            joinAddress: string;
            /** @description The cluster's name. */
            cluster: string;
            /** @description The release the cluster runs; joining nodes need the same payload release. */
            release: string | null;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description This request's id, on every answer (a problem's requestId too): the service's log lines of the request carry it. */
        RequestId: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealthz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The service is up. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description The request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getOpenApi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI document. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getPublicNodeYamlSchema: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A JSON Schema (2020-12). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/schema+json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getTls: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The served certificate. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Tls"];
                };
            };
            /** @description The request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The app serves no certificate of its own (built in process, without TLS). */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getConsole: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The console's page. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description The request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getConsoleScript: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The script. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "text/javascript": string;
                };
            };
            /** @description The request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getConsoleStyles: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The stylesheet. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "text/css": string;
                };
            };
            /** @description The request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The install's status. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Status"];
                };
            };
            /** @description The request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No install code, or the wrong one. */
            401: {
                headers: {
                    /** @description The scheme to use (RFC 6750): `Bearer realm="stratum-installer"`, with `error="invalid_token"` when the code sent was wrong. */
                    "WWW-Authenticate": string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many wrong install codes; wait for Retry-After. */
            429: {
                headers: {
                    /** @description Seconds until the next attempt is considered. */
                    "Retry-After": number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getOptions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The options. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Options"];
                };
            };
            /** @description The request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No install code, or the wrong one. */
            401: {
                headers: {
                    /** @description The scheme to use (RFC 6750): `Bearer realm="stratum-installer"`, with `error="invalid_token"` when the code sent was wrong. */
                    "WWW-Authenticate": string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many wrong install codes; wait for Retry-After. */
            429: {
                headers: {
                    /** @description Seconds until the next attempt is considered. */
                    "Retry-After": number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getConfig: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The draft. */
            200: {
                headers: {
                    /** @description The draft's version, for If-Match. */
                    ETag: string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DraftView"];
                };
            };
            /** @description The request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No install code, or the wrong one. */
            401: {
                headers: {
                    /** @description The scheme to use (RFC 6750): `Bearer realm="stratum-installer"`, with `error="invalid_token"` when the code sent was wrong. */
                    "WWW-Authenticate": string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many wrong install codes; wait for Retry-After. */
            429: {
                headers: {
                    /** @description Seconds until the next attempt is considered. */
                    "Retry-After": number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    putConfig: {
        parameters: {
            query?: never;
            header?: {
                /** @description The ETag from GET /config; the write is refused with 412 if the draft changed since. */
                "if-match"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StructuredDraft"];
                "text/yaml": string;
                "application/yaml": string;
            };
        };
        responses: {
            /** @description The stored draft. */
            200: {
                headers: {
                    /** @description The draft's version, for If-Match. */
                    ETag: string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DraftView"];
                };
            };
            /** @description The body does not parse or is not the expected shape; or the request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No install code, or the wrong one. */
            401: {
                headers: {
                    /** @description The scheme to use (RFC 6750): `Bearer realm="stratum-installer"`, with `error="invalid_token"` when the code sent was wrong. */
                    "WWW-Authenticate": string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request conflicts with the install's state. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description If-Match does not match the draft's ETag. */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over the limit. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Content type not accepted, or the body has a Content-Encoding (it is taken as it is, never compressed). */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many wrong install codes; wait for Retry-After. */
            429: {
                headers: {
                    /** @description Seconds until the next attempt is considered. */
                    "Retry-After": number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The state dir cannot be written (a full disk or quota, a read-only file system, permissions, a file or folder in the way, an I/O error, too many open files, the state dir gone): nothing was changed; the detail says why and what to do before a retry. */
            507: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    patchConfig: {
        parameters: {
            query?: never;
            header?: {
                /** @description The ETag from GET /config; the write is refused with 412 if the draft changed since. */
                "if-match"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/merge-patch+json": components["schemas"]["StructuredDraft"];
                "application/json": components["schemas"]["StructuredDraft"];
            };
        };
        responses: {
            /** @description The patched draft. */
            200: {
                headers: {
                    /** @description The draft's version, for If-Match. */
                    ETag: string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DraftView"];
                };
            };
            /** @description The body does not parse or is not the expected shape; or the request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No install code, or the wrong one. */
            401: {
                headers: {
                    /** @description The scheme to use (RFC 6750): `Bearer realm="stratum-installer"`, with `error="invalid_token"` when the code sent was wrong. */
                    "WWW-Authenticate": string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request conflicts with the install's state. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description If-Match does not match the draft's ETag. */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over the limit. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Content type not accepted, or the body has a Content-Encoding (it is taken as it is, never compressed). */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many wrong install codes; wait for Retry-After. */
            429: {
                headers: {
                    /** @description Seconds until the next attempt is considered. */
                    "Retry-After": number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The state dir cannot be written (a full disk or quota, a read-only file system, permissions, a file or folder in the way, an I/O error, too many open files, the state dir gone): nothing was changed; the detail says why and what to do before a retry. */
            507: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    validateConfig: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StructuredDraft"];
                "text/yaml": string;
                "application/yaml": string;
            };
        };
        responses: {
            /** @description What the validator says. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Validation"];
                };
            };
            /** @description The body does not parse or is not the expected shape; or the request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No install code, or the wrong one. */
            401: {
                headers: {
                    /** @description The scheme to use (RFC 6750): `Bearer realm="stratum-installer"`, with `error="invalid_token"` when the code sent was wrong. */
                    "WWW-Authenticate": string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over the limit. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Content type not accepted, or the body has a Content-Encoding (it is taken as it is, never compressed). */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many wrong install codes; wait for Retry-After. */
            429: {
                headers: {
                    /** @description Seconds until the next attempt is considered. */
                    "Retry-After": number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getNodeYaml: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The node.yaml. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/yaml": string;
                };
            };
            /** @description The request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No install code, or the wrong one. */
            401: {
                headers: {
                    /** @description The scheme to use (RFC 6750): `Bearer realm="stratum-installer"`, with `error="invalid_token"` when the code sent was wrong. */
                    "WWW-Authenticate": string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The draft does not validate. */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many wrong install codes; wait for Retry-After. */
            429: {
                headers: {
                    /** @description Seconds until the next attempt is considered. */
                    "Retry-After": number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    putNodeYaml: {
        parameters: {
            query?: never;
            header?: {
                /** @description The ETag from GET /config; the write is refused with 412 if the draft changed since. */
                "if-match"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "text/yaml": string;
                "application/yaml": string;
            };
        };
        responses: {
            /** @description The stored draft (source yaml). */
            200: {
                headers: {
                    /** @description The draft's version, for If-Match. */
                    ETag: string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DraftView"];
                };
            };
            /** @description The body does not parse or is not the expected shape; or the request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No install code, or the wrong one. */
            401: {
                headers: {
                    /** @description The scheme to use (RFC 6750): `Bearer realm="stratum-installer"`, with `error="invalid_token"` when the code sent was wrong. */
                    "WWW-Authenticate": string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request conflicts with the install's state. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description If-Match does not match the draft's ETag. */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over the limit. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Content type not accepted, or the body has a Content-Encoding (it is taken as it is, never compressed). */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many wrong install codes; wait for Retry-After. */
            429: {
                headers: {
                    /** @description Seconds until the next attempt is considered. */
                    "Retry-After": number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The state dir cannot be written (a full disk or quota, a read-only file system, permissions, a file or folder in the way, an I/O error, too many open files, the state dir gone): nothing was changed; the detail says why and what to do before a retry. */
            507: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getInstallReview: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The review. */
            200: {
                headers: {
                    /** @description The draft's version, for If-Match. */
                    ETag: string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InstallReview"];
                };
            };
            /** @description The request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No install code, or the wrong one. */
            401: {
                headers: {
                    /** @description The scheme to use (RFC 6750): `Bearer realm="stratum-installer"`, with `error="invalid_token"` when the code sent was wrong. */
                    "WWW-Authenticate": string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The draft does not validate. */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many wrong install codes; wait for Retry-After. */
            429: {
                headers: {
                    /** @description Seconds until the next attempt is considered. */
                    "Retry-After": number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getNodeYamlSchema: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A JSON Schema (2020-12). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/schema+json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No install code, or the wrong one. */
            401: {
                headers: {
                    /** @description The scheme to use (RFC 6750): `Bearer realm="stratum-installer"`, with `error="invalid_token"` when the code sent was wrong. */
                    "WWW-Authenticate": string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many wrong install codes; wait for Retry-After. */
            429: {
                headers: {
                    /** @description Seconds until the next attempt is considered. */
                    "Retry-After": number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    startInstall: {
        parameters: {
            query?: never;
            header?: {
                /** @description The draft's ETag as reviewed (GET /config/review); the install is refused with 412 if the draft changed since. */
                "if-match"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The attempt started. */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AttemptStarted"];
                };
            };
            /** @description The request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No install code, or the wrong one. */
            401: {
                headers: {
                    /** @description The scheme to use (RFC 6750): `Bearer realm="stratum-installer"`, with `error="invalid_token"` when the code sent was wrong. */
                    "WWW-Authenticate": string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request conflicts with the install's state. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description If-Match does not match the draft's ETag. */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over the limit. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The draft does not validate. */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many wrong install codes; wait for Retry-After. */
            429: {
                headers: {
                    /** @description Seconds until the next attempt is considered. */
                    "Retry-After": number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The state dir cannot be written (a full disk or quota, a read-only file system, permissions, a file or folder in the way, an I/O error, too many open files, the state dir gone): nothing was changed; the detail says why and what to do before a retry. */
            507: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    recheckReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The readiness wait started. */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AttemptStarted"];
                };
            };
            /** @description The request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No install code, or the wrong one. */
            401: {
                headers: {
                    /** @description The scheme to use (RFC 6750): `Bearer realm="stratum-installer"`, with `error="invalid_token"` when the code sent was wrong. */
                    "WWW-Authenticate": string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description An install is running or has succeeded. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over the limit. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many wrong install codes; wait for Retry-After. */
            429: {
                headers: {
                    /** @description Seconds until the next attempt is considered. */
                    "Retry-After": number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The state dir cannot be written (a full disk or quota, a read-only file system, permissions, a file or folder in the way, an I/O error, too many open files, the state dir gone): nothing was changed; the detail says why and what to do before a retry. */
            507: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getEvents: {
        parameters: {
            query?: {
                /** @description The attempt number; default the latest. */
                attempt?: number;
                /** @description Only events with a greater seq. */
                after?: number;
            };
            header?: {
                /** @description SSE resume point: the last seq received. */
                "last-event-id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The events: a page of InstallEvent objects (application/json), or a stream of them (text/event-stream). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventsPage"];
                    "text/event-stream": string;
                };
            };
            /** @description The query (attempt, after) or Last-Event-ID is not the expected shape; or the request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No install code, or the wrong one. */
            401: {
                headers: {
                    /** @description The scheme to use (RFC 6750): `Bearer realm="stratum-installer"`, with `error="invalid_token"` when the code sent was wrong. */
                    "WWW-Authenticate": string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown path or attempt. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many wrong install codes; wait for Retry-After. */
            429: {
                headers: {
                    /** @description Seconds until the next attempt is considered. */
                    "Retry-After": number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getVerdict: {
        parameters: {
            query?: {
                /** @description The attempt number; default the latest. */
                attempt?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The verdict. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Verdict"];
                };
            };
            /** @description The query (attempt) is not the expected shape; or the request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No install code, or the wrong one. */
            401: {
                headers: {
                    /** @description The scheme to use (RFC 6750): `Bearer realm="stratum-installer"`, with `error="invalid_token"` when the code sent was wrong. */
                    "WWW-Authenticate": string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown path or attempt. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request conflicts with the install's state. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many wrong install codes; wait for Retry-After. */
            429: {
                headers: {
                    /** @description Seconds until the next attempt is considered. */
                    "Retry-After": number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getReport: {
        parameters: {
            query?: {
                /** @description The attempt number; default the latest. */
                attempt?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The report. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Report"];
                };
            };
            /** @description The query (attempt) is not the expected shape; or the request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No install code, or the wrong one. */
            401: {
                headers: {
                    /** @description The scheme to use (RFC 6750): `Bearer realm="stratum-installer"`, with `error="invalid_token"` when the code sent was wrong. */
                    "WWW-Authenticate": string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown path or attempt. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many wrong install codes; wait for Retry-After. */
            429: {
                headers: {
                    /** @description Seconds until the next attempt is considered. */
                    "Retry-After": number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listAttempts: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The attempts. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Attempts"];
                };
            };
            /** @description The request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No install code, or the wrong one. */
            401: {
                headers: {
                    /** @description The scheme to use (RFC 6750): `Bearer realm="stratum-installer"`, with `error="invalid_token"` when the code sent was wrong. */
                    "WWW-Authenticate": string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many wrong install codes; wait for Retry-After. */
            429: {
                headers: {
                    /** @description Seconds until the next attempt is considered. */
                    "Retry-After": number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    checkCluster: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every check, in the order they ran; ok when all passed. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JoinCheckResult"];
                };
            };
            /** @description The request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No install code, or the wrong one. */
            401: {
                headers: {
                    /** @description The scheme to use (RFC 6750): `Bearer realm="stratum-installer"`, with `error="invalid_token"` when the code sent was wrong. */
                    "WWW-Authenticate": string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over the limit. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The draft is not a hyperconverged-join draft, or its cluster fields (name, join address, join token) are missing or malformed (errors); the rest of the draft need not validate for a check. */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many wrong install codes; wait for Retry-After. */
            429: {
                headers: {
                    /** @description Seconds until the next attempt is considered. */
                    "Retry-After": number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getJoinToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The join token and where joins point. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JoinToken"];
                };
            };
            /** @description The request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No install code, or the wrong one. */
            401: {
                headers: {
                    /** @description The scheme to use (RFC 6750): `Bearer realm="stratum-installer"`, with `error="invalid_token"` when the code sent was wrong. */
                    "WWW-Authenticate": string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description This node is not a hyperconverged-init node: it has no join token. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The init node is not installed yet. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many wrong install codes; wait for Retry-After. */
            429: {
                headers: {
                    /** @description Seconds until the next attempt is considered. */
                    "Retry-After": number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getSupportBundle: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bundle; its file name (host name and UTC time) in Content-Disposition. */
            200: {
                headers: {
                    "Content-Disposition": string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/gzip": string;
                };
            };
            /** @description The request is not valid HTTP (a malformed request line or header, an HTTP/1.1 request without Host); refused before the request is routed. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No install code, or the wrong one. */
            401: {
                headers: {
                    /** @description The scheme to use (RFC 6750): `Bearer realm="stratum-installer"`, with `error="invalid_token"` when the code sent was wrong. */
                    "WWW-Authenticate": string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many wrong install codes; wait for Retry-After. */
            429: {
                headers: {
                    /** @description Seconds until the next attempt is considered. */
                    "Retry-After": number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request headers are over 16 KB; refused before the request is routed. */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The installer failed to answer. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
}
