import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { analyzeYamlDraft, nodeYamlWithStableDisks, renderNodeYaml, validateDraft, withStableDisks } from "../../../core/config/index.ts";
import { mergePatch } from "../../../core/draft/service.ts";
import { assertErrors, type Expected } from "./expect-errors.ts";
import { HA_INIT, IDENTIFIED_CTX, IDENTIFIED_HOST, SHARED_NAMES_CTX } from "./fixtures.ts";

const withDisks = (osdDevices: string[]) => mergePatch(HA_INIT, { storage: { osdDevices } });
const SDB = "/dev/disk/by-id/wwn-0x5002538f4312abcd";
const NVME = "/dev/disk/by-id/nvme-eui.01000000000000005cd2e4c9e2a95051";

describe("OSD disks by stable identity: the validator", () => {
  it("accepts a disk by kernel path, by-id path, wwn- link, WWN or serial", () => {
    for (const name of ["/dev/sdb", SDB, "wwn-0x5002538f4312abcd", "0x5002538F4312ABCD", "S6ESNE0T612345", "S6ESNE0T612346", "eui.01000000000000005cd2e4c9e2a95051"]) {
      assert.deepEqual(validateDraft(withDisks([name]), IDENTIFIED_CTX), [], name);
    }
  });

  const cases: Array<{ name: string; disks: string[]; expected: Expected[] }> = [
    { name: "the same disk by path and by WWN", disks: ["/dev/sdb", "0x5002538f4312abcd"], expected: [["storage.osdDevices[1]", /^storage\.osdDevices\[1\] 0x5002538f4312abcd is listed twice \(also storage\.osdDevices\[0\] as \/dev\/sdb: both are \/dev\/sdb\)$/]] },
    { name: "the same disk by serial and by by-id path", disks: ["/dev/sdc", "S6ESNE0T612345", SDB], expected: [["storage.osdDevices[2]", /listed twice \(also storage\.osdDevices\[1\] as S6ESNE0T612345: both are \/dev\/sdb\)/]] },
    { name: "the same name twice", disks: [SDB, SDB], expected: [["storage.osdDevices[1]", /listed twice \(also storage\.osdDevices\[0\]\)$/]] },
    { name: "a disk in use, by WWN", disks: ["wwn-0x5002538f4200a001"], expected: [["storage.osdDevices[0]", /^storage\.osdDevices\[0\] wwn-0x5002538f4200a001 \(\/dev\/sda\) is in use \(mounted at \/\)/]] },
    { name: "a partition by its by-id path", disks: [`${SDB}-part1`], expected: [["storage.osdDevices[0]", /-part1 is a partition; Ceph takes whole disks/]] },
    { name: "a WWN no disk has", disks: ["0x5002538f4312ffff"], expected: [["storage.osdDevices[0]", /0x5002538f4312ffff is not a disk on this host/]] },
  ];
  for (const { name, disks, expected } of cases) {
    it(`refuses ${name}`, () => assertErrors(validateDraft(withDisks(disks), IDENTIFIED_CTX), expected));
  }

  const ambiguous: Array<{ name: string; disks: string[]; expected: Expected[] }> = [
    { name: "a serial two NVMe namespaces share", disks: ["PHAB123456781P6AGN"], expected: [["storage.osdDevices[0]", /^storage\.osdDevices\[0\] PHAB123456781P6AGN is ambiguous: \/dev\/nvme0n1 and \/dev\/nvme0n2 share this serial$/]] },
    { name: "a WWN two paths share", disks: ["0x5002538F4312ABCD"], expected: [["storage.osdDevices[0]", /^storage\.osdDevices\[0\] 0x5002538F4312ABCD is ambiguous: \/dev\/sdb and \/dev\/sdd share this WWN$/]] },
    { name: "a shared serial beside one of its disks by path", disks: ["/dev/nvme0n2", "PHAB123456781P6AGN"], expected: [["storage.osdDevices[1]", /PHAB123456781P6AGN is ambiguous/]] },
    { name: "a shared WWN beside one of its disks by path", disks: ["0x5002538f4312abcd", "/dev/sdd"], expected: [["storage.osdDevices[0]", /0x5002538f4312abcd is ambiguous: \/dev\/sdb and \/dev\/sdd/]] },
  ];
  for (const { name, disks, expected } of ambiguous) {
    it(`refuses ${name}, picking neither disk`, () => assertErrors(validateDraft(withDisks(disks), SHARED_NAMES_CTX), expected));
  }

  it("hints at each disk a shared name may mean by its own names; those names are accepted", () => {
    const [error] = validateDraft(withDisks(["PHAB123456781P6AGN"]), SHARED_NAMES_CTX);
    assert.equal(
      error?.hint,
      "name the disk by its /dev/disk/by-id path or kernel path: /dev/nvme0n1 (/dev/disk/by-id/nvme-eui.01000000000000005cd2e4c9e2a95051, WWN eui.01000000000000005cd2e4c9e2a95051, serial PHAB123456781P6AGN); " +
        "/dev/nvme0n2 (/dev/disk/by-id/nvme-eui.01000000000000005cd2e4c9e2a95052, WWN eui.01000000000000005cd2e4c9e2a95052, serial PHAB123456781P6AGN)",
    );
    assert.deepEqual(validateDraft(withDisks([NVME, "/dev/nvme0n2", "wwn-0x5002538f4312abcd", "/dev/sdd"]), SHARED_NAMES_CTX), []);
  });

  it("hints at every name a disk may be given", () => {
    const [unknown] = validateDraft(withDisks(["/dev/sdx"]), IDENTIFIED_CTX);
    assert.equal(
      unknown?.hint,
      "disks on this host: /dev/sda (in use: mounted at /); /dev/sdb (/dev/disk/by-id/wwn-0x5002538f4312abcd, WWN 0x5002538f4312abcd, serial S6ESNE0T612345); " +
        "/dev/sdc (serial S6ESNE0T612346); /dev/nvme0n1 (/dev/disk/by-id/nvme-eui.01000000000000005cd2e4c9e2a95051, WWN eui.01000000000000005cd2e4c9e2a95051, serial PHAB123456781P6AGN)",
    );
    const [byName] = validateDraft(withDisks(["sdb"]), IDENTIFIED_CTX);
    assert.equal(byName?.hint, `write ${SDB} (or /dev/sdb)`);
    const [partition] = validateDraft(withDisks(["/dev/sdb1"]), IDENTIFIED_CTX);
    assert.match(partition?.hint ?? "", new RegExp(`^did you mean ${SDB}\\?`));
  });

  it("says the same of a node.yaml draft, at the node.yaml key", () => {
    const yaml = renderNodeYaml(withDisks(["/dev/sdb", "S6ESNE0T612345"]) as never);
    const line = yaml.split("\n").findIndex((text) => text.includes("S6ESNE0T612345")) + 1;
    assertErrors(analyzeYamlDraft(yaml, IDENTIFIED_CTX).errors, [["storage.osd_devices[1]", /listed twice \(also storage\.osd_devices\[0\] as \/dev\/sdb/, line, 7]]);
  });
});

describe("OSD disks by stable identity: node.yaml", () => {
  it("names each disk by its stable path, whatever the draft called it; a disk with none keeps its kernel path", () => {
    const draft = withStableDisks(withDisks(["/dev/sdb", "eui.01000000000000005cd2e4c9e2a95051", "S6ESNE0T612346"]) as never, IDENTIFIED_HOST);
    assert.deepEqual(draft.storage?.osdDevices, [SDB, NVME, "/dev/sdc"]);
    assert.deepEqual(parse(renderNodeYaml(draft)).storage.osd_devices, [SDB, NVME, "/dev/sdc"]);
    assert.deepEqual(withStableDisks(withDisks([]) as never, IDENTIFIED_HOST).storage?.osdDevices, []);
  });

  it("renames a raw node.yaml's disks in place: comments, order and every other byte as written", () => {
    const yaml = "# rack 4, slot 2\nmode: ha-init\nstorage:\n  osd_devices: [/dev/sdb, 'S6ESNE0T612346']  # the two SSDs\n  # nvme left for later\nhostname: node-01\n";
    assert.equal(nodeYamlWithStableDisks(yaml, IDENTIFIED_HOST), yaml.replace("[/dev/sdb, 'S6ESNE0T612346']", `["${SDB}", "/dev/sdc"]`));
    const block = "storage:\n  osd_devices:\n    - wwn-0x5002538f4312abcd # sdb\n";
    assert.equal(nodeYamlWithStableDisks(block, IDENTIFIED_HOST), `storage:\n  osd_devices:\n    - "${SDB}" # sdb\n`);
    const already = `storage:\n  osd_devices: [${SDB}]\n`;
    assert.equal(nodeYamlWithStableDisks(already, IDENTIFIED_HOST), already, "nothing to rename: the text as it was");
  });

  // A disk named through an alias would be renamed where the anchor is: another key (cluster.name, an NTP server) with it.
  describe("a disk name shared through a YAML anchor and alias", () => {
    const base = renderNodeYaml({ ...HA_INIT, storage: undefined } as never);
    const cases: Array<[string, string, number, number]> = [
      ["an alias item", base.replace('name: "rack-a"', "name: &d S6ESNE0T612346") + "storage:\n  osd_devices:\n    - *d\n", 26, 7],
      ["an anchored item aliased elsewhere", base.replace('name: "rack-a"', "name: *d").replace("mode:", "storage:\n  osd_devices: [&d wwn-0x5002538f4312abcd]\nmode:"), 3, 20],
      ["a list through an alias", base.replace('  ntp:\n    - "ntp.example.net"\n    - "10.20.0.3"', "  ntp: &l [wwn-0x5002538f4312abcd]") + "storage:\n  osd_devices: *l\n", 23, 3],
    ];
    for (const [what, yaml, line, column] of cases) {
      it(`refuses ${what} at the item, with the stable path to write, and writes no node.yaml that renames the other use`, () => {
        const { errors } = analyzeYamlDraft(yaml, IDENTIFIED_CTX);
        assertErrors(errors, [["storage.osd_devices[0]", /^storage\.osd_devices\[0\] \S+ is named through a YAML alias \(or its anchor\), which node\.yaml cannot rewrite to the disk's stable path$/, line, column]]);
        assert.match(errors[0]!.hint!, /^write \/dev\/(sdc|disk\/by-id\/\S+) here instead$/);
        assert.equal(nodeYamlWithStableDisks(yaml, IDENTIFIED_HOST), yaml);
      });
    }

    it("accepts a stable path through an alias, and an anchor nothing refers to is renamed in place", () => {
      const stable = base.replace('name: "rack-a"', "name: &d /dev/sdc") + "storage:\n  osd_devices: [*d]\n";
      const anchored = base + "storage:\n  osd_devices: [&d S6ESNE0T612346]\n";
      assert.deepEqual(analyzeYamlDraft(anchored, IDENTIFIED_CTX).errors, []);
      assert.equal(nodeYamlWithStableDisks(anchored, IDENTIFIED_HOST), anchored.replace("&d S6ESNE0T612346", '&d "/dev/sdc"'));
      assert.equal(nodeYamlWithStableDisks(stable, IDENTIFIED_HOST), stable);
      assert.ok(!analyzeYamlDraft(stable, IDENTIFIED_CTX).errors.some((e) => e.field.startsWith("storage")));
    });
  });
});
