"""Bad captures are refused with one line naming the file and why, before JAX reads them.

Each case is a file a user might upload instead of an .xplane.pb: empty, truncated, not a
protobuf, a gzip or JSON file, a zip bomb, one over the upload limit, a zip without one.
"""

import gzip
import io
import zipfile

import pytest

from perfcore.measure.profile.read import capture, write, xspace

FAKE_PROTO = write.message((1, "jit_f"))  # an HloModuleProto holding only its name


def _capture() -> bytes:
    events = [write.OpEvent("dot.1", "jit_f", 3, 1, 1000 * i, 500) for i in range(50)]
    return write.xspace({("jit_f", 3): FAKE_PROTO}, events)


def _zip(name: str, data: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, data)
    return out.getvalue()


def _refused(data: bytes, match: str, **kw) -> str:
    with pytest.raises(xspace.CaptureError, match=match) as error:
        capture.parse_capture(data, "upload.xplane.pb", **kw)
    message = str(error.value)
    assert "\n" not in message and message.startswith("upload.xplane.pb")
    return message


def test_a_built_capture_walks_to_its_planes_and_modules():
    names, modules = xspace.walk(_capture(), "built")
    assert names == [xspace.METADATA_PLANE, "/device:GPU:0"]
    assert modules == {("jit_f", 3): FAKE_PROTO}


def test_an_empty_file_is_refused():
    _refused(b"", "empty file")


def test_a_truncated_capture_is_refused():
    data = _capture()
    _refused(data[: len(data) // 2], "truncated")


def test_bytes_that_are_not_protobuf_are_refused():
    _refused(b"hello, this is not a capture", "not a profiler capture")
    _refused(b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", "truncated|varint|not a")


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (gzip.compress(b'{"traceEvents": []}', mtime=0), "gzip"),  # mtime 0: the same id always
        (b'{"format": "perfcore-results", "version": 3}', "JSON"),
        (b"name,vendor\nH100,NVIDIA\n", "not a profiler capture"),
    ],
)
def test_a_file_of_the_wrong_type_is_refused(data, match):
    _refused(data, match)


def test_a_zip_bomb_is_refused_unread():
    """2 MiB of zeros deflate about 1000-fold: over the 100x ratio, refused before reading."""
    bomb = _zip("trace/plugins/profile/x/host.xplane.pb", bytes(2 * 2**20))
    assert len(bomb) < 2 * 2**20 / xspace.ZIP_RATIO_LIMIT
    _refused(bomb, "zip bomb")


def test_a_zip_without_a_capture_is_refused():
    _refused(_zip("notes.txt", b"hello"), "no .xplane.pb")


def test_an_upload_over_the_limit_is_refused():
    data = _capture()
    _refused(
        data + bytes(xspace.UPLOAD_LIMIT_BYTES), "over the limit", limit=xspace.UPLOAD_LIMIT_BYTES
    )


def test_a_zipped_trace_folder_is_opened(tmp_path):
    names, _ = xspace.walk(*xspace.capture_bytes(_zip("t/a.xplane.pb", _capture()), "t.zip"))
    assert "/device:GPU:0" in names


def test_a_folder_without_a_capture_is_refused(tmp_path):
    with pytest.raises(xspace.CaptureError, match="no .xplane.pb"):
        capture.read_capture(tmp_path)
