/*
 * The release log's entry for one change of the tree (log_entry.h), made
 * from its ledger record and what the tree and the attic hold once the
 * change's moves and reindex are done:
 *
 *   install: file <tarball>, file <signature> (signed), file <.sha256sum>,
 *            and under --force a gone line for every old file the attic
 *            event holds that the new release did not replace by name
 *   delete:  a gone line for every file the delete's attic event holds
 *
 * Paths are sources/<module>/<dir>/<name>. The same record and the same
 * tree give the same entry, so crash recovery can make it again.
 */
#ifndef POSTERN_CHANGE_ENTRY_H
#define POSTERN_CHANGE_ENTRY_H

#include "installd.h"
#include "ledger.h"
#include "log_entry.h"

int change_entry_build(const struct installd *d, const struct ledger_record *r,
		       struct log_entry *le, struct pst_err *e);

/* The same, as the entry's text (log_entry_format); its length or -errno. */
int change_entry_text(const struct installd *d, const struct ledger_record *r, char *out,
		      size_t cap, struct pst_err *e);

#endif
