// The packing variants the reference data covers, named
// [ENVELOPE:]POLICY[+note-omissions[=MAX]] (json unprefixed), with the
// options of pack.mjs. max-fill with --note-omissions is left out: packer
// makes no optimality claim there (moving a small document out of the
// omitted list can shrink the count, so "fullest" and "every skip does not
// fit" pull apart).
export const VARIANTS = [];
for (const envelope of ["json", "xml", "markdown"]) {
  const prefix = envelope === "json" ? "" : `${envelope}:`;
  VARIANTS.push(
    [`${prefix}in-order`, { envelope, policy: "in-order" }],
    [`${prefix}priority`, { envelope, policy: "priority" }],
    [`${prefix}max-fill`, { envelope, policy: "max-fill" }],
    [`${prefix}in-order+note-omissions`, { envelope, policy: "in-order", noteOmissions: true }],
    [`${prefix}priority+note-omissions`, { envelope, policy: "priority", noteOmissions: true }],
    [`${prefix}in-order+note-omissions=2`, { envelope, policy: "in-order", noteOmissions: true, noteOmissionsMax: 2 }],
    [`${prefix}priority+note-omissions=2`, { envelope, policy: "priority", noteOmissions: true, noteOmissionsMax: 2 }],
  );
}
