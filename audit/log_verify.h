/*
 * postern-audit verify: on the server, that the ledger, the release log and
 * the tree agree (docs/RELEASES.md, "The release log"):
 *   - the log: its checkpoint signed by the key (--vkey, else the tree's own
 *     log/vkey, which proves consistency only), every entry and tile;
 *   - the state: <state>/history/log.size is the log's size, nothing pending;
 *   - the ledger: its last N lines are the log's N entries, one for one
 *     (the lines before them are from before the log began);
 *   - the tree: exactly the files the log publishes (postern-verify --mirror).
 */
#ifndef POSTERN_AUDIT_LOG_VERIFY_H
#define POSTERN_AUDIT_LOG_VERIFY_H

/* argv[0] is "verify"; returns the exit status (0 agree, 1 differ, 2 error). */
int audit_verify_main(int argc, char **argv);

#endif
