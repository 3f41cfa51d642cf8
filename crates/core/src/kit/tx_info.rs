//! The `TransactionInfo` row every Ozone DB keeps: the (term, index) its content is claimed
//! to cover (`TransactionInfo`, key `OzoneConsts.TRANSACTION_INFO_KEY`), and the states a
//! replica that applied each log entry once holds, against which durable states are checked.
//!
//! ```
//! use ozone_ha_check::kit::store::Tables;
//! use ozone_ha_check::kit::tx_info::{stored_index, TxRow, TX_KEY};
//!
//! #[derive(Clone, Debug, PartialEq)]
//! enum Row { Tx(u64), Data(u64) }
//! impl TxRow for Row {
//!     const TABLE: &'static str = "transactionInfoTable";
//!     fn tx_info(_term: u64, index: u64) -> Self { Row::Tx(index) }
//!     fn tx_index(&self) -> Option<u64> { match self { Row::Tx(i) => Some(*i), _ => None } }
//! }
//!
//! let mut t = Tables::default();
//! assert_eq!(stored_index(&t), 0);
//! t.put(Row::TABLE, TX_KEY, Row::tx_info(1, 7));
//! assert_eq!(stored_index(&t), 7);
//! ```

use super::raft_log::{LogEntry, Payload, RaftLog};
use super::store::{TableName, Tables, WriteBatch};

/// `OzoneConsts.TRANSACTION_INFO_KEY`.
pub const TX_KEY: &str = "#TRANSACTIONINFO";

/// A row type whose DB holds a `TransactionInfo` row.
pub trait TxRow: Clone {
    /// The table that holds it (the OM's `transactionInfoTable`, the SCM's own).
    const TABLE: TableName;
    /// The `TransactionInfo` row for `(term, index)`.
    fn tx_info(term: u64, index: u64) -> Self;
    /// The index, if this row is a `TransactionInfo`.
    fn tx_index(&self) -> Option<u64>;
}

/// The transaction index a DB claims to cover (`TransactionInfo.readTransactionInfo`); 0
/// when the row is absent.
pub fn stored_index<V: TxRow>(tables: &Tables<V>) -> u64 {
    tables
        .get(V::TABLE, TX_KEY)
        .and_then(TxRow::tx_index)
        .unwrap_or(0)
}

/// Write the `TransactionInfo` row for `(term, index)` into `tables`.
pub fn put_tx_info<V: TxRow>(tables: &mut Tables<V>, term: u64, index: u64) {
    tables.put(V::TABLE, TX_KEY, V::tx_info(term, index));
}

/// Stage the `TransactionInfo` row for `(term, index)` in `batch`.
pub fn stage_tx_info<V: TxRow>(batch: &mut WriteBatch<V>, term: u64, index: u64) {
    batch.put(V::TABLE, TX_KEY, V::tx_info(term, index));
}

/// `apply(log[1..i])` with TX = i, for i = 0..=last: what a replica that applied each entry
/// once holds at index i. `apply` applies one data entry to the tables.
pub fn reference_states<V: TxRow, E>(
    log: &RaftLog<E>,
    initial: Tables<V>,
    mut apply: impl FnMut(&LogEntry<E>, &E, &mut Tables<V>),
) -> Vec<Tables<V>> {
    let mut view = initial;
    let mut states = vec![view.clone()];
    for entry in log.prefix(log.last_index()) {
        if let Payload::Data(request) = &entry.payload {
            apply(entry, request, &mut view);
        }
        put_tx_info(&mut view, entry.term, entry.index);
        states.push(view.clone());
    }
    states
}
