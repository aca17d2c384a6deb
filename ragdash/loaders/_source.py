"""Where bytes come from, and how they become numbered lines of text.

A :class:`Source` is one file, wherever it lives: on disk, inside a .zip, or uploaded through
the app (bytes in memory). Its ``name`` is what error messages call it ("data.zip:corpus.jsonl").
``.gz`` files are decompressed on the fly.

Text decoding (decided once, here):

- UTF-8, with or without a byte-order mark (Excel writes one with "CSV UTF-8").
- UTF-16 with a byte-order mark (Excel's "Unicode text") is decoded.
- Japanese legacy encodings: Shift_JIS / CP932 (what Excel in Japan writes by default) and
  EUC-JP. When the start of the file (the first 1 MB) is not UTF-8, charset-normalizer
  guesses the encoding from that sample; a Japanese guess is confirmed by decoding the whole
  file with it, and the loader names the encoding in the dataset's notes. Kana are not
  needed: kanji-only headers (``質問ID,文書ID,関連度``), half-width kana and kana-less corpora
  are recognised. Any other guess, or a Japanese guess the whole file does not confirm, gets a
  :class:`DatasetError` naming the likely encoding, the line of the first bad byte and how to
  save the file as UTF-8. A file whose start is mostly valid UTF-8 but which has a bad byte is
  UTF-8 with a corrupt line, and that line is named.

Files are streamed line by line (the sniffing reads the first 1 MB), so a large corpus is
never held as one big string.

Limits (so a small hostile file cannot exhaust memory; both adjustable through the
environment, read when a file is opened):

- one line: at most ``RAGDASH_MAX_LINE_MB`` (default 16) MB, in every text file; a longer line
  is refused naming the file and line, after reading only the limit;
- a .zip: its members together unzip to at most ``RAGDASH_MAX_UNZIPPED_MB`` (default 2,048) MB,
  counted from each member's declared size before it is opened (Python's zipfile never
  returns more than the declared size), and a ``.gz`` file is cut off at the same figure. The
  member that passes the limit is named;
- a JSON document (the article's format), which is parsed whole: at most
  ``RAGDASH_MAX_JSON_MB`` (default 512) MB, wherever it comes from (a 2 MB ``.json.gz`` must
  not become gigabytes of string).
"""

from __future__ import annotations

import codecs
import gzip
import io
import os
import re
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import BinaryIO

import charset_normalizer

from ..errors import DatasetError
from ..formats.files import require_regular_file
from ..formats.limits import (  # the limits' one home; re-exported for the loaders
    MAX_JSON_ENV,
    MAX_LINE_ENV,
    MAX_UNZIPPED_ENV,
    MB,
    max_json_bytes,
    max_line_bytes,
    max_unzipped_bytes,
)
from ..formats.limits import shown_mb as _mb
from ..formats.limits import suggest_mb as _suggest_mb
from ..i18n import dataset_error, text

SNIFF_BYTES = 1024 * 1024  # the sample the encoding is decided from
UTF8_FIX = "save the file as UTF-8 (in Excel: 'CSV UTF-8'; in a text editor: encoding UTF-8)"

# Exceptions that mean "these bytes are not a readable archive / stream": zipfile, gzip and
# zlib raise a zoo of them on corrupt or hostile input.
_STREAM_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, gzip.BadGzipFile, zlib.error,
                  EOFError, OSError, ValueError, NotImplementedError, RuntimeError, KeyError)

_KANA = re.compile(r"[\u3041-\u309f\u30a0-\u30ff]")


class _ZipBudget:
    """What the members of one .zip opened so far unzip to, by their declared sizes."""

    def __init__(self) -> None:
        self.sizes: dict[str, int] = {}

    def admit(self, info: zipfile.ZipInfo, name: str) -> None:
        self.sizes[info.filename] = int(info.file_size)
        total, limit = sum(self.sizes.values()), max_unzipped_bytes()
        if total > limit:
            earlier = total - int(info.file_size)
            more = f" (with {_mb(earlier)} MB of members read before it)" if earlier else ""
            size, cap = f"{_mb(info.file_size)} MB", f"{_mb(limit)} MB"
            if size == cap:
                size, cap = f"{int(info.file_size):,} bytes", f"{limit:,} bytes"
            raise dataset_error("load.zip_member_too_big", file=name, size=size, more=more,
                                cap=cap, env=MAX_UNZIPPED_ENV, suggest=_suggest_mb(total))


class _CappedStream:
    """A decompressing stream that stops with a DatasetError after ``cap`` bytes."""

    def __init__(self, inner: BinaryIO, cap: int, name: str) -> None:
        self.inner, self.cap, self.name, self.seen = inner, cap, name, 0

    def _count(self, data: bytes) -> bytes:
        self.seen += len(data)
        if self.seen > self.cap:
            raise dataset_error("load.gzip_too_big", file=self.name, mb=_mb(self.cap),
                                env=MAX_UNZIPPED_ENV, suggest=_suggest_mb(self.cap * 2))
        return data

    def read(self, n: int = -1) -> bytes:
        if n == 0:
            return b""
        if n is None or n < 0:
            chunks = []
            while True:
                chunk = self.read(1 << 20)
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)
        return self._count(self.inner.read(min(n, self.cap + 1 - self.seen) or 1))

    def readline(self, limit: int = -1) -> bytes:
        room = self.cap + 1 - self.seen
        return self._count(self.inner.readline(room if limit is None or limit < 0
                                               else min(limit, room)))

    def close(self) -> None:
        self.inner.close()

    def __enter__(self) -> _CappedStream:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@dataclass(frozen=True)
class Source:
    """One file: ``name`` for messages, ``path`` relative to its dataset root, an opener."""

    name: str
    path: str
    _opener: Callable[[], BinaryIO]
    #: the encoding decided for this file, once (a legacy encoding costs a whole-file check)
    _encoding: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    # -- construction --------------------------------------------------------------------
    @classmethod
    def from_path(cls, path: str | os.PathLike, *, rel: str | None = None) -> Source:
        p = Path(path)

        def opener() -> BinaryIO:
            require_regular_file(p)  # a FIFO would wait forever, a device never end
            return open(p, "rb")

        return cls(str(p), rel if rel is not None else p.name, opener)

    @classmethod
    def from_bytes(cls, name: str, data: bytes, *, rel: str | None = None) -> Source:
        return cls(name, rel if rel is not None else name, lambda: io.BytesIO(data))

    @classmethod
    def from_zip(cls, zf: zipfile.ZipFile, info: zipfile.ZipInfo, zip_name: str,
                 *, rel: str | None = None, budget: _ZipBudget | None = None) -> Source:
        name = f"{zip_name}:{info.filename}"
        budget = budget if budget is not None else _ZipBudget()

        def opener() -> BinaryIO:
            budget.admit(info, name)  # before anything is unzipped
            return zf.open(info)

        return cls(name, rel if rel is not None else info.filename, opener)

    # -- properties ----------------------------------------------------------------------
    @property
    def basename(self) -> str:
        return PurePosixPath(self.path).name

    @property
    def compressed(self) -> bool:
        return self.basename.lower().endswith(".gz")

    @property
    def stem(self) -> str:
        """File name without compression and format suffixes, lower case."""
        name = self.basename.lower()
        if name.endswith(".gz"):
            name = name[:-3]
        return name.rsplit(".", 1)[0] if "." in name else name

    @property
    def ext(self) -> str:
        """The format suffix without compression (".jsonl" for corpus.jsonl.gz), lower case."""
        name = self.basename.lower()
        if name.endswith(".gz"):
            name = name[:-3]
        return "." + name.rsplit(".", 1)[1] if "." in name else ""

    # -- reading -------------------------------------------------------------------------
    def open(self) -> BinaryIO:
        """A fresh binary stream (decompressed if ``.gz``); errors become DatasetError."""
        try:
            raw = self._opener()
        except DatasetError:
            raise
        except FileNotFoundError as exc:
            raise dataset_error("load.file_not_found", file=self.name) from exc
        except PermissionError as exc:
            raise dataset_error("load.permission_denied", file=self.name) from exc
        except _STREAM_ERRORS as exc:
            raise self.corrupt(exc) from exc
        if self.compressed:
            return _CappedStream(gzip.GzipFile(fileobj=raw, mode="rb"),  # type: ignore
                                 max_unzipped_bytes(), self.name)
        return raw

    def corrupt(self, exc: BaseException) -> DatasetError:
        what = text("load.what_gzip") if self.compressed else text("load.what_file")
        detail = str(exc).strip() or type(exc).__name__
        return dataset_error("load.corrupt", file=self.name, what=what, detail=detail)

    def read_bytes(self, limit: int | None = None) -> bytes:
        stream = self.open()
        try:
            with stream:
                return stream.read() if limit is None else stream.read(limit)
        except DatasetError:
            raise
        except _STREAM_ERRORS as exc:
            raise self.corrupt(exc) from exc


# -- decoding ------------------------------------------------------------------------------
def _first_bad_line(data: bytes, pos: int) -> int:
    return data[:pos].count(b"\n") + 1


def detect_encoding(head: bytes, source: Source, *, complete: bool) -> str:
    """Pick the codec for a file from its first bytes (up to :data:`SNIFF_BYTES`).

    Returns "utf-8-sig", "utf-8", "utf-16", "cp932", "shift_jis_2004" or "euc_jis_2004";
    raises DatasetError otherwise. ``complete`` says ``head`` is the whole file (so a cut
    multi-byte character is an error).
    """
    if "codec" in source._encoding:
        return source._encoding["codec"]
    codec = _detect(head, source, complete=complete)
    source._encoding["codec"] = codec
    return codec


def _detect(head: bytes, source: Source, *, complete: bool) -> str:
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    if b"\x00" in head:
        line = _first_bad_line(head, head.index(b"\x00"))
        raise dataset_error("load.not_text", file=source.name, line=line)
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=complete)
        return "utf-8"
    except UnicodeDecodeError as exc:
        utf8_error = exc
    line = _first_bad_line(head, utf8_error.start)
    byte = head[utf8_error.start]
    # Mostly valid multi-byte UTF-8 means a UTF-8 file with a corrupt byte. Legacy bytes
    # decoded as UTF-8 give mostly errors (a few valid sequences happen by accident).
    lenient = head.decode("utf-8", errors="replace")
    bad = lenient.count("\ufffd")
    good = sum(1 for c in lenient if ord(c) > 127) - bad
    if good > bad:
        raise dataset_error("load.not_utf8", file=source.name, line=line, byte=byte)
    return _legacy_encoding(head, source, complete=complete, line=line, byte=byte)


#: charset-normalizer's names for the Japanese encodings -> the codec read with (a superset:
#: CP932 is Shift_JIS with the Windows characters Excel writes; the 2004 codecs add JIS X 0213)
_JAPANESE = {"cp932": "cp932", "shift_jis": "cp932", "shift_jis_2004": "shift_jis_2004",
             "shift_jisx0213": "shift_jis_2004", "euc_jp": "euc_jis_2004",
             "euc_jis_2004": "euc_jis_2004", "euc_jisx0213": "euc_jis_2004"}
#: how much more chaos (charset-normalizer's measure of odd characters, 0..1) a Japanese
#: reading may show than the best one and still win when its language is as coherent: short
#: kanji-only samples differ by about 0.01 between CP932 and CP949
_NEAR_CHAOS = 0.05
#: tried when the guessed codec does not decode the whole file
_FALLBACK = {"cp932": "shift_jis_2004"}


def guess_encoding(sample: bytes) -> str | None:
    """charset-normalizer's best guess for ``sample`` (a Python codec name), or None.

    On a short sample of kanji-only or half-width-kana text CP932, EUC-JP, CP949 and GB18030
    often come out (nearly) even: a Japanese reading wins when its chaos is within
    :data:`_NEAR_CHAOS` of the best and its language at least as coherent, CP932 (what Excel
    in Japan writes) first among equals; the whole file is then decoded with it before it is
    used. A Japanese reading that gives mojibake (:func:`_garbled`) is no candidate.
    """
    matches = [m for m in charset_normalizer.from_bytes(sample)
               if m.encoding not in _JAPANESE
               or not _garbled(sample.decode(m.encoding, errors="replace"))]
    if not matches:
        return None
    best = matches[0]
    near = [m for m in matches if m.encoding in _JAPANESE
            and m.chaos <= best.chaos + _NEAR_CHAOS and m.coherence >= best.coherence - 1e-9]
    if near:  # the most coherent; among equals, Excel's CP932 first
        order = list(_JAPANESE)
        near.sort(key=lambda m: (-round(m.coherence, 6), order.index(m.encoding)))
        return near[0].encoding
    return best.encoding


def _legacy_encoding(head: bytes, source: Source, *, complete: bool, line: int,
                     byte: int) -> str:
    """The Japanese encoding of a file that is not UTF-8, confirmed over the whole file."""
    sample = head
    if not complete:  # a character cut at the end of the sample would spoil the guess
        cut = head.rfind(b"\n")
        sample = head[:cut + 1] if cut > 0 else head
    guess = guess_encoding(sample)
    codec = _JAPANESE.get(guess or "")
    if codec is None and _mostly_japanese(sample):
        codec = "cp932"  # Shift_JIS with a few bad bytes: the detector rules it out
    if codec is None:
        if guess is None:
            raise dataset_error("load.not_utf8", file=source.name, line=line, byte=byte)
        raise dataset_error("load.not_utf8_likely", file=source.name, line=line, byte=byte,
                            likely=encoding_label(guess))
    bad_line = _first_undecodable_line(source, codec)
    if (bad_line is not None and codec in _FALLBACK
            and _first_undecodable_line(source, _FALLBACK[codec]) is None):
        return _FALLBACK[codec]
    if bad_line is not None:
        raise dataset_error("load.likely_but_not", file=source.name, line=bad_line,
                            likely=encoding_label(codec))
    return codec


_JAPANESE_CHARS = re.compile(r"[\u3041-\u30ff\u4e00-\u9fff]")
_KANJI = re.compile(r"[\u4e00-\u9fff]")


def _garbled(decoded: str) -> bool:
    """Mojibake rather than Japanese: a third of the kanji outside JIS level 1.

    Japanese text uses the ~3,000 level-1 kanji (Shift_JIS 0x889F-0x9872) almost only;
    Chinese or Korean bytes read as Japanese land on rare kanji all over the table.
    """
    kanji = _KANJI.findall(decoded)
    if len(kanji) < 2:
        return False
    rare = sum(1 for c in kanji if c.encode("cp932", errors="replace") > b"\x98\x72")
    return rare * 3 > len(kanji)


def _mostly_japanese(sample: bytes) -> bool:
    """Kana and kanji when read as CP932, with at most one bad character to four."""
    decoded = sample.decode("cp932", errors="replace")
    japanese = len(_JAPANESE_CHARS.findall(decoded))
    return (japanese >= 2 and decoded.count("\ufffd") * 4 <= japanese
            and not _garbled(decoded))


def _first_undecodable_line(source: Source, codec: str) -> int | None:
    """The line of the first byte ``codec`` cannot decode, reading the whole file in blocks;
    None when all of it decodes."""
    decoder = codecs.getincrementaldecoder(codec)()
    lines, pending = 1, b""
    stream = source.open()
    try:
        with stream:
            while True:
                block = stream.read(1 << 20)
                final = not block
                try:
                    decoder.decode(block, final=final)
                except UnicodeDecodeError:
                    # re-decode this block from a line start to find the line
                    data = pending + block
                    for number, raw in enumerate(data.split(b"\n")):
                        try:
                            raw.decode(codec)
                        except UnicodeDecodeError:
                            return lines + number
                    return lines
                if final:
                    return None
                data = pending + block
                cut = data.rfind(b"\n")
                lines += data.count(b"\n", 0, cut + 1)
                pending = data[cut + 1:]
    except DatasetError:
        raise
    except _STREAM_ERRORS as exc:
        raise source.corrupt(exc) from exc


ENCODING_LABELS = {"utf-8": "UTF-8", "utf-8-sig": "UTF-8 with BOM", "utf-16": "UTF-16",
                   "cp932": "Shift_JIS (CP932)", "shift_jis_2004": "Shift_JIS-2004",
                   "euc_jis_2004": "EUC-JP"}
#: how a guessed encoding is named in a message (charset-normalizer's codec names otherwise)
_GUESS_LABELS = {"gb18030": "GB18030 (Chinese)", "big5": "Big5 (Chinese)",
                 "cp949": "CP949 (Korean)", "euc_kr": "EUC-KR (Korean)",
                 "cp1252": "Windows-1252 (Western European)", "latin_1": "Latin-1",
                 "cp1250": "Windows-1250 (Central European)"}


def encoding_label(codec: str) -> str:
    """A codec as a person knows it ("Shift_JIS (CP932)", "EUC-JP", "cp1250")."""
    return (ENCODING_LABELS.get(codec) or ENCODING_LABELS.get(_JAPANESE.get(codec, ""))
            or _GUESS_LABELS.get(codec) or codec)


#: the encodings a loader names in its notes (UTF-8 goes without saying)
LEGACY_ENCODINGS = ("utf-16", "cp932", "shift_jis_2004", "euc_jis_2004")


class TextLines:
    """The lines of a Source as ``(line_number, text)``, numbered from 1, streamed.

    ``encoding`` is set once iteration has started (see :func:`detect_encoding`).
    Line endings: ``\\n``, ``\\r\\n`` and old-Mac ``\\r``. With ``keepends=True`` each line
    keeps its ``\\n`` (the csv module needs it for quoted fields that span lines).
    """

    def __init__(self, source: Source, *, keepends: bool = False) -> None:
        self.source = source
        self.keepends = keepends
        self.encoding: str | None = None

    def sniff(self) -> str:
        head = self.source.read_bytes(SNIFF_BYTES + 1)
        complete = len(head) <= SNIFF_BYTES
        self.encoding = detect_encoding(head[:SNIFF_BYTES], self.source, complete=complete)
        return self.encoding

    def __iter__(self) -> Iterator[tuple[int, str]]:
        head = self.source.read_bytes(SNIFF_BYTES + 1)
        complete = len(head) <= SNIFF_BYTES
        encoding = detect_encoding(head[:SNIFF_BYTES], self.source, complete=complete)
        self.encoding = encoding
        cr_only = b"\r" in head and b"\n" not in head
        if encoding == "utf-16" or cr_only:
            yield from self._whole(encoding)
            return
        codec = "utf-8" if encoding == "utf-8-sig" else encoding
        longest = max_line_bytes()
        stream = self.source.open()
        with stream:
            number = 0
            while True:
                try:
                    raw = stream.readline(longest + 1)
                except DatasetError:
                    raise
                except _STREAM_ERRORS as exc:
                    raise self.source.corrupt(exc) from exc
                if not raw:
                    break
                number += 1
                if len(raw) > longest:
                    raise self.too_long(number, longest)
                if number == 1 and raw.startswith(codecs.BOM_UTF8):
                    raw = raw[3:]
                try:
                    text = raw.decode(codec)
                except UnicodeDecodeError as exc:
                    raise self._bad_line(number, raw, codec, exc) from exc
                if "\x00" in text:
                    raise dataset_error("load.line_nul", file=self.source.name, line=number)
                if self.keepends:
                    if text.endswith("\r\n"):
                        text = text[:-2] + "\n"
                else:
                    text = text.rstrip("\r\n")
                yield number, text

    def too_long(self, number: int, longest: int) -> DatasetError:
        return dataset_error("load.line_too_long", file=self.source.name, line=number,
                             mb=_mb(longest), env=MAX_LINE_ENV, suggest=int(longest / MB * 4))

    def _bad_line(self, number: int, raw: bytes, codec: str,
                  exc: UnicodeDecodeError) -> DatasetError:
        if codec == "utf-8":
            hint = ""
            try:
                if _KANA.search(raw.decode("cp932")):
                    hint = text("load.looks_sjis")
            except UnicodeDecodeError:
                pass
            return dataset_error("load.line_not_utf8", file=self.source.name, line=number,
                                 hint=hint, byte=raw[exc.start])
        return dataset_error("load.line_not_codec", file=self.source.name, line=number,
                             encoding=encoding_label(codec))

    def _whole(self, encoding: str) -> Iterator[tuple[int, str]]:
        data = self.source.read_bytes()
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as exc:
            line = _first_bad_line(data, exc.start)
            raise dataset_error("load.file_not_codec", file=self.source.name, line=line,
                                encoding=encoding_label(encoding)) from exc
        text = text.lstrip("\ufeff")
        if "\x00" in text:
            raise dataset_error("load.file_nul", file=self.source.name)
        longest = max_line_bytes()
        for number, line in enumerate(text.splitlines(), start=1):
            if len(line) * 4 > longest and len(line.encode("utf-8", "surrogatepass")) > longest:
                raise self.too_long(number, longest)
            yield number, line + "\n" if self.keepends else line


def decode_all(source: Source) -> tuple[str, str]:
    """The whole file as one string (for JSON documents) and the encoding used. A JSON
    document is parsed whole (three to four times its size in memory), so it may hold at most
    ``RAGDASH_MAX_JSON_MB`` (512) MB; only that much is read of a longer one."""
    longest = max_json_bytes()
    data = source.read_bytes(longest + 1)
    if len(data) > longest:
        raise dataset_error("load.json_too_big", file=source.name, mb=_mb(longest),
                            env=MAX_JSON_ENV, suggest=int(longest / MB * 2))
    encoding = detect_encoding(data[:SNIFF_BYTES], source, complete=len(data) <= SNIFF_BYTES)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = _first_bad_line(data, exc.start)
        raise dataset_error("load.file_not_codec_byte", file=source.name, line=line,
                            encoding=encoding_label(encoding),
                            byte=data[exc.start]) from exc
    return text.lstrip("\ufeff"), encoding


# -- sets of files (a folder, a zip, an upload) -------------------------------------------------
_JUNK = re.compile(r"(^|/)(__MACOSX/|\.[^/]*$|\._|Thumbs\.db$|desktop\.ini$)", re.IGNORECASE)


def is_junk(rel: str) -> bool:
    """OS litter a folder or zip carries: __MACOSX/, hidden files, ._ resource forks."""
    return bool(_JUNK.search(rel)) or any(part.startswith(".") for part in rel.split("/")[:-1])


def folder_sources(folder: Path) -> list[Source]:
    out = []
    try:
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for fn in sorted(filenames):
                full = Path(dirpath) / fn
                rel = full.relative_to(folder).as_posix()
                if not is_junk(rel):
                    out.append(Source.from_path(full, rel=rel))
    except OSError as exc:
        raise dataset_error("load.cannot_list_folder", file=str(folder),
                            reason=exc.strerror) from exc
    return out


def open_zip(data_or_path: bytes | Path, name: str) -> zipfile.ZipFile:
    try:
        fileobj = io.BytesIO(data_or_path) if isinstance(data_or_path, bytes) else data_or_path
        return zipfile.ZipFile(fileobj)
    except _STREAM_ERRORS as exc:
        raise dataset_error("load.bad_zip", file=name) from exc


def zip_sources(zf: zipfile.ZipFile, name: str) -> list[Source]:
    try:
        infos = zf.infolist()
    except _STREAM_ERRORS as exc:
        raise dataset_error("load.cannot_list_zip", file=name) from exc
    out = []
    budget = _ZipBudget()  # shared by the members: what they unzip to, in all
    for info in infos:
        if info.is_dir() or is_junk(info.filename):
            continue
        if info.flag_bits & 0x1:
            raise dataset_error("load.zip_password", file=name, record=info.filename)
        out.append(Source.from_zip(zf, info, name, rel=info.filename.replace("\\", "/"),
                                   budget=budget))
    return out
