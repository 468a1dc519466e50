"""A JSONL journal loads line by line from the file (never all its bytes at once) and reads the file as it was
when the load began: a writer beside a read-only reader may go on appending."""

from solvi_lab.journal import Journal


def _fill(path, n):
    with Journal(path) as j:
        for i in range(n):
            j.append("k", {"i": i})


def test_a_reader_loads_what_was_there_when_it_opened(tmp_path):
    path = tmp_path / "x.jsonl"
    _fill(path, 5)
    w = Journal(path)
    seen = []

    def on_load(r):  # the writer appends while the reader is loading
        seen.append(r.position)
        if r.position == 1:
            w.append("k", {"i": "late"})

    with Journal(path, mode="r", on_load=on_load) as r:
        assert seen == [0, 1, 2, 3, 4] and len(r) == 5 and r._backend.torn_tail == 0
    w.close()
    with Journal(path, mode="r") as r:
        assert len(r) == 6 and r[5].payload == {"i": "late"} and r.verify()


def test_a_reader_leaves_out_a_line_being_written(tmp_path):
    path = tmp_path / "x.jsonl"
    _fill(path, 3)
    with open(path, "ab") as f:
        f.write(b'{"hash":"ab')
    with Journal(path, mode="r") as r:
        assert len(r) == 3 and r._backend.torn_tail == len(b'{"hash":"ab') and [x.payload["i"] for x in r] == [0, 1, 2]


def test_empty_and_one_line_journals(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"")
    with Journal(path) as j:
        assert len(j) == 0
        j.append("k", {"i": 0})
    with Journal(path, mode="r") as r:
        assert len(r) == 1 and r.verify() and r._backend.offsets == [0]
