import assert from "node:assert/strict";
import { profileOptionGroups, profileOptions } from "../../src/config/options.ts";

Deno.test("the profile table holds every option of every group file once, in its group", () => {
  const declared: string[] = [];
  for (const table of Object.values(profileOptionGroups)) {
    const groups = new Set(Object.values(table).map((spec) => spec.group));
    // One help group per file: an option declared in the wrong file shows up here.
    assert.equal(groups.size, 1, [...groups].join(", "));
    declared.push(...Object.keys(table));
  }
  assert.deepEqual([...declared].sort(), Object.keys(profileOptions).sort());
  assert.equal(new Set(declared).size, declared.length);
  for (const table of Object.values(profileOptionGroups)) {
    for (const [key, spec] of Object.entries(table)) {
      assert.equal(profileOptions[key as keyof typeof profileOptions], spec, key);
    }
  }
});

Deno.test("flags are unique across the profile table", () => {
  const seen = new Map<string, string>();
  for (const [key, spec] of Object.entries(profileOptions)) {
    for (const flag of [spec.flag, ...(spec.aliases ?? [])]) {
      assert.equal(seen.get(flag), undefined, `--${flag} is both ${seen.get(flag)} and ${key}`);
      seen.set(flag, key);
    }
  }
});
