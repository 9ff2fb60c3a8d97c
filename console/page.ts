/** The console's one HTML page; /console.js fills it from the API. */
export const CONSOLE_HTML = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Stratum installer</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console.css">
<script src="/console.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to the installer</a>
<header class="bar">
  <h1>Stratum installer</h1>
  <p id="where" class="where"></p>
  <button type="button" id="sign-out" class="quiet" hidden>Sign out</button>
</header>
<main id="main" tabindex="-1">
<p id="notice" class="alert" role="alert" hidden></p>
<p id="announce" class="sr" aria-live="polite"></p>

<section id="sign-in" class="card narrow" aria-labelledby="sign-in-title" hidden>
  <h2 id="sign-in-title">Sign in</h2>
  <form id="sign-in-form" novalidate>
    <div class="field">
      <label for="code">Install code</label>
      <p class="help" id="code-help">Shown in the installer's banner on the node's console, or by <code>node installer.js code</code>.</p>
      <input id="code" autocomplete="off" autocapitalize="characters" spellcheck="false" aria-describedby="code-help sign-in-error" required>
    </div>
    <p id="sign-in-error" class="error" role="alert" hidden></p>
    <p id="lockout" class="lockout" role="timer" hidden></p>
    <button type="submit" id="sign-in-button" class="primary">Sign in</button>
  </form>
</section>

<div id="unattended" class="card notice" role="status" hidden></div>

<section id="configure" aria-labelledby="configure-title" hidden>
  <h2 id="configure-title">Configure this node</h2>
  <div id="summary" class="card summary" tabindex="-1" hidden></div>
  <div role="tablist" aria-label="How to edit the draft" class="tabs">
    <button type="button" role="tab" id="tab-form" aria-controls="panel-form" aria-selected="true">Guided form</button>
    <button type="button" role="tab" id="tab-yaml" aria-controls="panel-yaml" aria-selected="false" tabindex="-1">node.yaml</button>
  </div>

  <div role="tabpanel" id="panel-form" aria-labelledby="tab-form" class="card">
    <p id="form-source" class="help" hidden>The draft is a raw node.yaml (see the node.yaml tab). Saving this form replaces it with what the form holds.</p>
    <nav aria-label="Steps"><ol id="stepper" class="stepper"></ol></nav>
    <form id="config-form" novalidate>
      <section class="step" data-title="Mode" aria-labelledby="s0">
        <h3 id="s0" tabindex="-1">Mode</h3>
        <fieldset id="modes" data-field="mode"><legend>Install mode</legend></fieldset>
        <div class="field"><label for="f-hostname">Hostname</label><input id="f-hostname" data-path="hostname" data-field="hostname" autocomplete="off" spellcheck="false"></div>
        <div class="field"><label for="f-timezone">Time zone <span class="opt">(optional)</span></label><input id="f-timezone" data-path="timezone" data-field="timezone" list="timezones" autocomplete="off" placeholder="e.g. Europe/Berlin"><datalist id="timezones"></datalist></div>
      </section>

      <section class="step" data-title="Network" aria-labelledby="s1" hidden>
        <h3 id="s1" tabindex="-1">Network</h3>
        <div class="field"><label for="f-interface">Management interface</label><select id="f-interface" data-path="network.interface" data-field="network.interface"></select></div>
        <div class="field"><label for="f-address">Address with prefix</label><input id="f-address" data-path="network.address" data-field="network.address" placeholder="e.g. 10.20.0.11/24" spellcheck="false"></div>
        <div class="field"><label for="f-gateway">Gateway</label><input id="f-gateway" data-path="network.gateway" data-field="network.gateway" placeholder="e.g. 10.20.0.1" spellcheck="false"></div>
        <div class="field" data-modes="hyperconverged-init disaggregated-control-plane"><label for="f-vip">Cluster virtual IP (VIP)</label><p class="help" id="h-vip">An unused address in the management subnet.</p><input id="f-vip" data-path="network.vip" data-field="network.vip" aria-describedby="h-vip" spellcheck="false"></div>
        <fieldset data-list="network.dns" data-field="network.dns" data-item="DNS server"><legend>DNS servers</legend></fieldset>
        <fieldset data-list="network.ntp" data-field="network.ntp" data-item="NTP server"><legend>NTP servers <span class="opt">(optional)</span></legend></fieldset>
        <fieldset data-list="network.floatingIpCidrs" data-field="network.floatingIpCidrs" data-item="floating IP range"><legend>Floating IP ranges (CIDR) <span class="opt">(optional)</span></legend></fieldset>
      </section>

      <section class="step" data-title="Storage" aria-labelledby="s2" hidden>
        <h3 id="s2" tabindex="-1">Storage</h3>
        <fieldset id="disks" data-field="storage.osdDevices"><legend>Ceph OSD disks</legend>
          <p class="help" id="h-disks">Ceph erases the disks you choose. Hyperconverged modes need at least one; a single node may leave them all unchosen. Disks in use cannot be chosen.</p>
        </fieldset>
      </section>

      <section class="step" data-title="Cluster" aria-labelledby="s3" hidden>
        <h3 id="s3" tabindex="-1">Cluster</h3>
        <p data-modes="single-node">A single node founds and joins no cluster: nothing to set here.</p>
        <div class="field" data-modes="hyperconverged-init disaggregated-control-plane"><label for="f-cluster-name">Cluster name</label><input id="f-cluster-name" data-path="cluster.name" data-field="cluster.name" spellcheck="false"></div>
        <div class="field" data-modes="hyperconverged-join"><label for="f-join-address">Address of a node in the cluster</label><input id="f-join-address" data-path="cluster.joinAddress" data-field="cluster.joinAddress" spellcheck="false"></div>
        <div class="field" data-modes="hyperconverged-join"><label for="f-join-token">Join token</label><input id="f-join-token" type="password" data-path="cluster.joinToken" data-field="cluster.joinToken" autocomplete="off"></div>
      </section>

      <section class="step" data-title="Admin" aria-labelledby="s4" hidden>
        <h3 id="s4" tabindex="-1">Admin</h3>
        <fieldset id="admin" data-field="admin"><legend>How the admin logs in</legend>
          <p class="help">At least one SSH key or a password hash.</p>
          <fieldset data-list="admin.sshAuthorizedKeys" data-field="admin.sshAuthorizedKeys" data-item="SSH key" data-multiline><legend>SSH authorized keys</legend></fieldset>
          <div class="field"><label for="f-password-hash">Password hash <span class="opt">(optional)</span></label><p class="help" id="h-hash">A crypt(3) hash such as <code>$6$…</code> from <code>mkpasswd -m sha-512</code>, never the password itself.</p><input id="f-password-hash" data-path="admin.passwordHash" data-field="admin.passwordHash" aria-describedby="h-hash" autocomplete="off" spellcheck="false"></div>
        </fieldset>
      </section>

      <p class="hand-over" data-hand-over hidden>Saving hands the draft to you: the unattended install no longer starts by itself.</p>
      <div class="actions">
        <button type="button" id="back">Back</button>
        <button type="submit" id="save" class="primary">Save and continue</button>
      </div>
    </form>
  </div>

  <div role="tabpanel" id="panel-yaml" aria-labelledby="tab-yaml" class="card" hidden>
    <form id="yaml-form" novalidate>
      <div class="field">
        <label for="yaml">node.yaml</label>
        <p class="help" id="h-yaml">The whole draft as node.yaml (snake_case keys). Saving replaces the draft with this text, comments and all.</p>
        <textarea id="yaml" rows="18" spellcheck="false" autocapitalize="off" aria-describedby="h-yaml yaml-errors"></textarea>
      </div>
      <div id="yaml-errors" aria-live="polite"></div>
      <p class="hand-over" data-hand-over hidden>Saving hands the draft to you: the unattended install no longer starts by itself.</p>
      <div class="actions"><button type="submit" class="primary">Save node.yaml</button></div>
    </form>
  </div>

  <section id="install-card" class="card" aria-labelledby="install-title" tabindex="-1">
    <h3 id="install-title">Install</h3>
    <div id="blockers"></div>
    <p id="readiness-of-draft"></p>
    <button type="button" id="install-button" class="primary" aria-describedby="readiness-of-draft">Install</button>
  </section>
</section>

<section id="install" aria-labelledby="install-view-title" hidden>
  <h2 id="install-view-title" tabindex="-1">Install</h2>
  <div id="verdict" class="card verdict" tabindex="-1" hidden></div>
  <div class="columns">
    <div class="card">
      <h3>Steps</h3>
      <ol id="steps" class="progress"></ol>
    </div>
    <div class="card">
      <h3>Cloud readiness</h3>
      <p id="cloud-state">Not polled yet.</p>
      <table id="checks" hidden><caption class="sr">Readiness checks</caption><thead><tr><th scope="col">Check</th><th scope="col">Status</th><th scope="col">Detail</th></tr></thead><tbody></tbody></table>
    </div>
  </div>
  <div class="card">
    <h3 id="log-title">Log</h3>
    <div id="log" class="log" role="log" aria-live="polite" aria-labelledby="log-title" tabindex="0"></div>
  </div>
</section>
</main>
</body>
</html>
`;
