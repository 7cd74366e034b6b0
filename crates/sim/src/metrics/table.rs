//! Columnar result tables, handed to Python (and written as Parquet there)
//! or summarised by the command-line binary.

#[derive(Debug, Clone)]
pub enum Column {
    U32(Vec<u32>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    Str(Vec<String>),
    OptU64(Vec<Option<u64>>),
    OptI64(Vec<Option<i64>>),
    OptF64(Vec<Option<f64>>),
}

#[derive(Debug, Clone)]
pub struct Table {
    pub name: &'static str,
    pub columns: Vec<(&'static str, Column)>,
}

impl Table {
    pub fn new(name: &'static str) -> Table {
        Table { name, columns: Vec::new() }
    }

    pub fn col(mut self, name: &'static str, c: Column) -> Table {
        self.columns.push((name, c));
        self
    }

    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| match c {
            Column::U32(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::Bool(v) => v.len(),
            Column::Str(v) => v.len(),
            Column::OptU64(v) => v.len(),
            Column::OptI64(v) => v.len(),
            Column::OptF64(v) => v.len(),
        })
    }
}
