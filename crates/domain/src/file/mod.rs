//! Files: what people submit (scans, selfies, statements), held under an entity or a
//! form. Metadata are rows; the bytes sit behind the [`content::FileStore`] port.

pub mod content;
