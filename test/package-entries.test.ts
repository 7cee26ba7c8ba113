/** Which folder dbt deps installs each package of packages.yml / dependencies.yml as, and which are not installed. */
import { describe, expect, test } from "bun:test";
import { missingPackages, packageEntries } from "../src/project/dbt/package-entries.ts";
import { Project } from "../src/project/model.ts";
import { WorkTree } from "../src/project/files/source.ts";
import { tempDir, writeTree } from "./support/temp.ts";

const PACKAGES = `packages:
  - package: dbt-labs/dbt_utils
    version: 1.3.0
  - git: "https://github.com/dbt-labs/dbt-audit-helper.git"
    revision: 0.12.0
  - git: "https://github.com/org/monorepo.git"
    subdirectory: packages/shared_macros/
  - tarball: https://example.com/pkg.tar.gz
    name: tarred
  - local: vendor/helpers
`;

describe("package entries", () => {
  test("each entry's install folder: the hub name's last part, the git repository's or subdirectory's, a tarball's name, a local project's name", async () => {
    using dir = tempDir();
    writeTree(dir.path, {
      "dbt_project.yml": "name: shop\n",
      "packages.yml": PACKAGES,
      "dependencies.yml": "projects:\n  - name: upstream\npackages:\n  - package: calogica/dbt_expectations\n    version: 0.10.0\n",
      "vendor/helpers/dbt_project.yml": "name: helper_macros\n",
    });
    const entries = await packageEntries(new Project(new WorkTree(dir.path)));
    expect(entries.map((entry) => [entry.where, entry.names])).toEqual([
      ["packages.yml:2", ["dbt_utils"]],
      ["packages.yml:4", ["dbt-audit-helper", "dbt_audit_helper"]],
      ["packages.yml:6", ["shared_macros"]],
      ["packages.yml:8", ["tarred"]],
      ["packages.yml:10", ["helper_macros"]],
      ["dependencies.yml:4", ["dbt_expectations"]],
    ]);
  });

  test("package-lock.yml's name is the install folder dbt deps used", async () => {
    using dir = tempDir();
    writeTree(dir.path, {
      "dbt_project.yml": "name: shop\n",
      "packages.yml": PACKAGES,
      "package-lock.yml":
        "packages:\n  - git: https://github.com/dbt-labs/dbt-audit-helper.git\n    revision: 0.12.0\n    name: audit_helper\nsha1_hash: x\n",
    });
    const entries = await packageEntries(new Project(new WorkTree(dir.path)));
    expect(entries[1]?.names).toEqual(["audit_helper"]);
  });

  test("installed packages are not missing (by folder or project name); the others are, and a project without packages.yml misses none", async () => {
    using dir = tempDir();
    writeTree(dir.path, {
      "dbt_project.yml": "name: shop\npackages-install-path: deps\n",
      "packages.yml":
        "packages:\n  - package: dbt-labs/dbt_utils\n    version: 1.3.0\n  - package: dbt-labs/codegen\n    version: 0.12.0\n",
      "deps/dbt_utils/dbt_project.yml": "name: dbt_utils\n",
    });
    const missing = await missingPackages(new Project(new WorkTree(dir.path)));
    expect(missing.map((entry) => entry.written)).toEqual(["dbt-labs/codegen"]);
    writeTree(dir.path, { "deps/codegen/dbt_project.yml": "name: codegen\n" });
    expect(await missingPackages(new Project(new WorkTree(dir.path)))).toEqual([]);
    using bare = tempDir();
    writeTree(bare.path, { "dbt_project.yml": "name: shop\n" });
    expect(await missingPackages(new Project(new WorkTree(bare.path)))).toEqual([]);
  });
});
