//! What a log of key and snapshot creates must give: the log applied to a fresh OM DB one
//! entry at a time, each committed before the next, so that every snapshot is the committed
//! state before its create. The scenarios compare the model's snapshot directories and
//! active DB with it.

use super::requests::{deleted_keys, SnapshotRequest};
use crate::kit::raft_log::RaftLog;
use crate::kit::tx_info::put_tx_info;
use crate::models::om::startup::data_after;
use crate::models::om::{OmRow, OmTables, DELETED_TABLE, OPEN_KEY_TABLE, SNAPSHOT_INFO_TABLE};

/// The log applied in order, one entry at a time, each committed before the next: what each
/// snapshot must hold and what the active DB ends with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// Each snapshot, in log order: its name, its create's index, and the committed state
    /// before it (the entries before the create, `TransactionInfo` the last of them).
    pub snapshots: Vec<(String, u64, OmTables)>,
    /// The active DB after the last entry applied.
    pub active: OmTables,
    /// The last index applied: the log's last, or `through` if that comes first.
    pub last: u64,
}

/// `log`'s data entries up to `through` (all of them with `None`) applied to `initial`, each
/// with its `TransactionInfo`: a key create opens its key (the row named by the key, 10 bytes,
/// update id = index); a snapshot create takes the committed state, then, with `cleanup`,
/// moves the bucket's `deletedTable` rows into it (they leave the active DB), and adds its row.
///
/// The models' logs of key and snapshot creates only: a purge panics.
///
/// ```
/// use ozone_ha_check::kit::raft_log::RaftLog;
/// use ozone_ha_check::kit::store::Tables;
/// use ozone_ha_check::kit::tx_info::{put_tx_info, stored_index};
/// use ozone_ha_check::models::om::snapshot::reference::apply_in_order;
/// use ozone_ha_check::models::om::snapshot::requests::SnapshotRequest;
/// use ozone_ha_check::models::om::{OmRow, DELETED_TABLE, OPEN_KEY_TABLE};
///
/// // 1 configuration, 2 CreateKey k1, 3 CreateSnapshot s1, 4 CreateKey k2.
/// let mut log = RaftLog::new();
/// log.start_term(1);
/// log.append(SnapshotRequest::CreateKey { key: "k1".into() });
/// log.append(SnapshotRequest::CreateSnapshot { snapshot: "s1".into() });
/// log.append(SnapshotRequest::CreateKey { key: "k2".into() });
/// let mut initial = Tables::default();
/// initial.put(DELETED_TABLE, "d1", OmRow::Key { size: 10, update_id: 0 });
/// put_tx_info(&mut initial, 0, 0);
///
/// let r = apply_in_order(&log, initial.clone(), None, true);
/// let (name, index, s1) = &r.snapshots[0];
/// assert_eq!((name.as_str(), *index, stored_index(s1)), ("s1", 3, 2));
/// assert!(s1.get(DELETED_TABLE, "d1").is_some() && s1.get(OPEN_KEY_TABLE, "k1").is_some());
/// assert!(r.active.get(DELETED_TABLE, "d1").is_none());
/// assert_eq!((stored_index(&r.active), r.last), (4, 4));
///
/// // Without the cleanup the active DB keeps d1; up to index 2 there is no snapshot yet.
/// assert!(apply_in_order(&log, initial.clone(), None, false).active.get(DELETED_TABLE, "d1").is_some());
/// let early = apply_in_order(&log, initial, Some(2), true);
/// assert!(early.snapshots.is_empty());
/// assert_eq!((stored_index(&early.active), early.last), (2, 2));
/// ```
pub fn apply_in_order(
    log: &RaftLog<SnapshotRequest>,
    initial: OmTables,
    through: Option<u64>,
    cleanup: bool,
) -> Reference {
    let through = through.unwrap_or(u64::MAX);
    let mut t = initial;
    let mut snapshots = Vec::new();
    for (entry, request) in data_after(log, 0).take_while(|(e, _)| e.index <= through) {
        match request {
            SnapshotRequest::CreateKey { key } => t.put(
                OPEN_KEY_TABLE,
                key,
                OmRow::Key {
                    size: 10,
                    update_id: entry.index,
                },
            ),
            SnapshotRequest::CreateSnapshot { snapshot } => {
                snapshots.push((snapshot.clone(), entry.index, t.clone()));
                if cleanup {
                    for key in deleted_keys(&t) {
                        t.delete(DELETED_TABLE, &key);
                    }
                }
                t.put(
                    SNAPSHOT_INFO_TABLE,
                    snapshot,
                    OmRow::Snapshot { last_tx: 0 },
                );
            }
            SnapshotRequest::PurgeKeys { .. } | SnapshotRequest::SnapshotPurge { .. } => {
                panic!("the reference applies key and snapshot creates only, not {request}")
            }
        }
        put_tx_info(&mut t, entry.term, entry.index);
    }
    Reference {
        snapshots,
        active: t,
        last: log.last_index().min(through),
    }
}
