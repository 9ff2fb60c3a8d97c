export const FLEET_USAGE = `Usage: node installer.js fleet PLAN.yaml [flags]

Installs a whole cluster from one plan, through each node's installer API:
checks the plan offline, connects to every installer (its TLS certificate pinned), has each
node validate its draft, installs the init node, reads its join token, then installs the joins.

Flags:
  --dry-run        connect and validate on every node, change nothing
  --parallel N     joins installed (or bundles gathered) at once (default 1)
  --rechecks N     readiness rechecks per node whose verdict says recheckReadiness (default 1)
  --state FILE     the resume file (default PLAN.fleet-state.json beside the plan);
                   fleet-report.json is written beside it
  --support-bundle DIR
                   install nothing: gather each node's support bundle into DIR as NODE.tar.gz
                   (--parallel N at once), and DIR/index.json naming every node with its file,
                   size and SHA-256, or why it has none; exit 0 every bundle came, 1 some did not
  --json           JSON Lines on stdout, each with a "node" field (null for the fleet itself)
  --example        print a commented plan
  --help, -h       this text

Exit: 0 every node installed; 1 a node failed, or the state file or report could not be written
(the summary says which file and why; no install is sent whose start the state file cannot
record first: that node is not started); 2 the plan is unusable, a node unreachable
or refused (a wrong fingerprint, a wrong install code), or another run installs from the
same state file (its lock, FILE.lock, names it); 130 stopped watching (Ctrl-C; 143 on SIGTERM, 129 on SIGHUP):
the installs go on, and running the same command again follows them. A run in which a node
failed or went out of reach, or that stopped at the nodes' checks, ends with the command that
gathers what happened on them (--support-bundle).

The plan (YAML; \`fleet --example\` prints one):
  cluster:
    name          the cluster's name (every node's cluster.name)
    vip           the cluster's virtual IP: every node's network.vip, and the joins'
                  cluster.joinAddress unless joinAddress says otherwise
    joinAddress   where joins reach the founding node's cloud API (host or host:port, port 8443)
    common        merged into every node's draft (structured draft keys: timezone, network,
                  storage, admin); a node's config wins key by key, a list replaces a list
  nodes:          a list; exactly one has role init, the others join
    - name        the node's hostname
      installer   its installer's URL, https://HOST:9443
      fingerprint the TLS SHA-256 its installer's banner printed (AB:CD:… or plain hex);
                  a certificate that does not match refuses the node, it is never trusted
      code        its install code: env:VAR, file:PATH (relative to the plan) or the code
      role        init or join
      config      the node's own draft keys (network.interface, network.address, storage, …)
  mode, hostname, network.vip and cluster are set by the fleet, not in config.

Each problem of the plan is printed as PLAN:LINE:COL path: message, all at once.
`;

export const EXAMPLE_PLAN = `# A three-node hyperconverged cluster: node-01 founds it, node-02 and node-03 join.
# Install it with: node installer.js fleet cluster.yaml   (--dry-run first to check, changing nothing)
cluster:
  name: lab-1
  vip: 10.20.0.10                  # every node's network.vip; the joins reach the cluster here (port 8443)
  # joinAddress: 10.20.0.10:8443   # where joins reach the founding node's cloud API, when not the vip
  common:                          # merged into every node's draft; a node's config wins
    timezone: UTC
    network:
      gateway: 10.20.0.1
      dns: [10.20.0.2]
      ntp: [pool.ntp.org]
      floatingIpCidrs: [203.0.113.0/24]
    admin:
      sshAuthorizedKeys:
        - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILiKC8H2HZ+8AWqEaKfWurXlBfJr2GIG7jvaAWYOvYgK ops@example
nodes:
  - name: node-01                  # its hostname
    installer: https://10.20.0.11:9443
    fingerprint: "9F:86:D0:81:88:4C:7D:65:9A:2F:EA:A0:C5:5A:D0:15:A3:BF:4F:1B:2B:0B:82:2C:D1:5D:6C:15:B0:F0:0A:08"   # its banner's TLS SHA-256
    code: env:NODE01_CODE          # the install code from an environment variable…
    role: init                     # exactly one node founds the cluster
    config:
      network: { interface: eno1, address: 10.20.0.11/24 }
      storage: { osdDevices: [/dev/sdb] }
  - name: node-02
    installer: https://10.20.0.12:9443
    fingerprint: 0f5aa9d8fdf7cd7e3d4ab8a39648513c7b06a98d8e081b591989b70839b5460c   # plain hex works too
    code: file:codes/node-02       # …from a file beside the plan (\`node installer.js code\` prints it on the node)…
    role: join
    config:
      network: { interface: eno1, address: 10.20.0.12/24 }
      storage: { osdDevices: [/dev/sdb, /dev/sdc] }
  - name: node-03
    installer: https://10.20.0.13:9443
    fingerprint: 879fdcb78de039afea292497cf56033b30d351e9896e1cd37d04aae392af0576
    code: K7QX-M2PD-R4TV           # …or the code itself
    role: join
    config:
      network: { interface: eno1, address: 10.20.0.13/24 }
      storage: { osdDevices: [/dev/sdb] }
`;
