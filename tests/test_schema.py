"""The result schema: exact types for known columns, tolerance for new ones."""

import numpy as np
import pyarrow as pa
import pytest
from pathpool import schema


def flows_columns(rows: int = 2) -> dict:
    """Columns of a flows table as the extension hands them over: numpy arrays,
    lists of str, and lists with None for nullable columns."""
    return {
        "flow_id": np.arange(rows, dtype=np.uint32),
        "name": [f"f{i}" for i in range(rows)],
        "src": ["a"] * rows,
        "dst": ["b"] * rows,
        "transport": ["tcp"] * rows,
        "cc": ["newreno"] * rows,
        "size_bytes": [None, 1_000_000][:rows],
        "start_s": np.zeros(rows),
        "finish_s": [None, 1.5][:rows],
        "fct_s": [None, 1.5][:rows],
        "completed": np.array([False, True][:rows]),
        "bytes_delivered": np.array([5, 1_000_000][:rows], dtype=np.uint64),
        "goodput_bps": np.array([1e6, 2e6][:rows]),
        "segments_sent": np.ones(rows, dtype=np.uint64),
        "retransmits": np.zeros(rows, dtype=np.uint64),
        "timeouts": np.zeros(rows, dtype=np.uint64),
        "rtt_mean_s": [0.02, None][:rows],
        "rtt_min_s": [0.01, None][:rows],
        "ooo_delay_mean_s": [None, 0.004][:rows],
        "ooo_delay_p95_s": [None, 0.02][:rows],
        "aggregation_pct": [None, 93.5][:rows],
    }


def test_known_columns_get_exactly_the_schema_types_and_metadata():
    table = schema.build_table("flows", flows_columns())
    assert table.schema.equals(schema.FLOWS, check_metadata=True)
    assert table.column("size_bytes").to_pylist() == [None, 1_000_000]
    assert table.column("rtt_mean_s").null_count == 1


def test_every_column_is_documented():
    for name, table_schema in schema.SCHEMAS.items():
        assert table_schema.metadata[b"description"], name
        for field in table_schema:
            assert field.metadata[b"description"], f"{name}.{field.name}"
    assert schema.FLOWS.field("fct_s").metadata[b"unit"] == b"s"
    assert schema.LINKS.field("rate_bps").metadata[b"unit"] == b"bit/s"


def test_columns_are_converted_from_other_integer_types():
    columns = flows_columns()
    columns["flow_id"] = [0, 1]
    columns["bytes_delivered"] = np.array([5, 6], dtype=np.int64)
    table = schema.build_table("flows", columns)
    assert table.schema.field("flow_id").type == pa.uint32()
    assert table.schema.field("bytes_delivered").type == pa.uint64()


def test_nan_stays_nan_in_a_non_nullable_float_column():
    table = schema.build_table("flow_ts", {
        "time_s": np.array([0.1, 0.2]), "flow_id": np.zeros(2, dtype=np.uint32),
        "goodput_bps": np.zeros(2), "cwnd_bytes": np.zeros(2, dtype=np.uint64),
        "srtt_s": np.array([np.nan, 0.03]), "bytes_in_flight": np.zeros(2, dtype=np.uint64),
        # Unpaced, and no bandwidth estimate: NaN, as the simulator emits them.
        "pacing_rate_bps": np.full(2, np.nan), "bw_estimate_bps": np.array([np.nan, 1e6]),
        "imbalance_bytes": np.array([0, -1448], dtype=np.int64), "increment": np.array([np.nan, 0.25]),
    })
    for column in ("srtt_s", "pacing_rate_bps", "bw_estimate_bps"):
        assert table.column(column).null_count == 0
        assert np.isnan(table.column(column)[0].as_py())
        assert table.schema.field(column).metadata[b"unit"] == b"bit/s" or column == "srtt_s"


def test_extra_columns_follow_the_known_ones_with_inferred_types():
    columns = {"subflow_count": np.array([1, 2], dtype=np.int16), **flows_columns()}
    table = schema.build_table("flows", columns)
    assert table.column_names == schema.FLOWS.names + ["subflow_count"]
    assert table.schema.field("subflow_count").type == pa.int16()


def test_unknown_tables_are_kept_with_inferred_types():
    tables = schema.build_tables({
        "events": {"flow_id": np.array([0, 0], dtype=np.uint32), "what": ["handover", "rat-change"]},
        "flows": flows_columns(),
        "links": {f.name: pa.array([], type=f.type) for f in schema.LINKS},
        "flow_ts": {f.name: [] for f in schema.FLOW_TS},
        "link_ts": {f.name: [] for f in schema.LINK_TS},
    })
    assert list(tables) == [*schema.SCHEMAS, "events"]
    assert tables["events"].schema.field("what").type == pa.string()
    assert tables["flow_ts"].schema.equals(schema.FLOW_TS, check_metadata=True)


def test_a_missing_known_column_is_an_error():
    columns = flows_columns()
    del columns["goodput_bps"]
    with pytest.raises(ValueError, match="flows.*goodput_bps"):
        schema.build_table("flows", columns)


def test_a_missing_known_table_comes_back_empty():
    tables = schema.build_tables({"flows": flows_columns(), "links": {f.name: [] for f in schema.LINKS}})
    assert list(tables) == list(schema.SCHEMAS)
    for name in ("flow_ts", "link_ts"):
        assert tables[name].num_rows == 0
        assert tables[name].schema.equals(schema.SCHEMAS[name], check_metadata=True)


def test_null_in_a_non_nullable_column_is_an_error():
    columns = flows_columns()
    columns["goodput_bps"] = [1.0, None]
    with pytest.raises(ValueError, match="goodput_bps.*cannot be null"):
        schema.build_table("flows", columns)
