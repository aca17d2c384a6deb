"""Excel workbooks: one, several in a folder, a zip or an upload, or beside CSV files that
lack a part — each time the sentence a single workbook gets (save each sheet as CSV UTF-8),
never "no data files found"."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from ragdash.errors import DatasetError
from ragdash.loaders import load_dataset, load_uploads

_PARTS = {
    "[Content_Types].xml":
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
        'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-'
        'officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/'
        'sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.'
        'spreadsheetml.worksheet+xml"/></Types>',
    "_rels/.rels":
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
        'relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
    "xl/workbook.xml":
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
        '<sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
    "xl/_rels/workbook.xml.rels":
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
        'relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
}


def workbook(rows: list[list[str]]) -> bytes:
    """A minimal SpreadsheetML workbook (what Excel saves as .xlsx), one sheet of text."""
    cells = "".join(
        "<row>" + "".join(f'<c t="inlineStr"><is><t>{v}</t></is></c>' for v in row) + "</row>"
        for row in rows)
    sheet = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns='
             '"http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
             f"{cells}</sheetData></worksheet>")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, body in {**_PARTS, "xl/worksheets/sheet1.xml": sheet}.items():
            zf.writestr(name, body)
    return buf.getvalue()


BOOKS = {"corpus.xlsx": workbook([["id", "text"], ["d1", "東京"]]),
         "queries.xlsx": workbook([["id", "text"], ["q1", "首都"]]),
         "qrels.xlsx": workbook([["qid", "docid"], ["q1", "d1"]])}


def said(call) -> str:
    with pytest.raises(DatasetError) as caught:
        call()
    return str(caught.value)


def assert_excel_sentence(message: str) -> None:
    assert "Excel workbooks are not read directly" in message, message
    assert "CSV UTF-8" in message and "no data files found" not in message


def test_a_single_workbook(tmp_path: Path):
    (tmp_path / "qrels.xlsx").write_bytes(BOOKS["qrels.xlsx"])
    assert_excel_sentence(said(lambda: load_dataset(tmp_path / "qrels.xlsx")))


def test_a_folder_of_workbooks_names_them(tmp_path: Path):
    for name, data in BOOKS.items():
        (tmp_path / name).write_bytes(data)
    message = said(lambda: load_dataset(tmp_path))
    assert_excel_sentence(message)
    assert "corpus.xlsx" in message and "qrels.xlsx" in message


def test_three_uploaded_workbooks_and_a_zip_of_them():
    assert_excel_sentence(said(lambda: load_uploads(list(BOOKS.items()))))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in BOOKS.items():
            zf.writestr(f"data/{name}", data)
    assert_excel_sentence(said(lambda: load_uploads([("data.zip", buf.getvalue())])))


def test_csv_tables_with_a_part_only_in_a_workbook(tmp_path: Path):
    (tmp_path / "corpus.csv").write_text("id,text\nd1,東京\n", encoding="utf-8")
    (tmp_path / "queries.csv").write_text("id,text\nq1,首都\n", encoding="utf-8")
    (tmp_path / "qrels.xlsx").write_bytes(BOOKS["qrels.xlsx"])
    message = said(lambda: load_dataset(tmp_path))
    assert_excel_sentence(message)
    assert "no qrels table" in message and "qrels.xlsx" in message
