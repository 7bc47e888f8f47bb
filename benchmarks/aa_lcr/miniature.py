"""A miniature AA-LCR in the dataset's exact layout, built offline: the tests' data and the
embedded model's (the card's files are user-fetched).

Four document sets of four short company reports each (quarterly figures of a made-up
company among neutral sentences), six questions that each need two of a set's reports (a
difference, a comparison), written as the card's two files: ``AA-LCR_Dataset.csv`` with its
columns in its order and ``extracted_text/AA-LCR_extracted-text.zip`` with each document at
``lcr/{category}/{set}/{filename}``. The same bytes on any machine (fixed texts, a seeded
choice of sentences, fixed zip timestamps); the reports' lengths vary (about 60 to 200
o200k tokens) so that the sweep's whole documents can fill a length closely. Nothing in it
is a real company or a real figure.
"""

from __future__ import annotations

import csv
import io
import random
import zipfile
from pathlib import Path

import benchmarks.aa_lcr.dataset as dataset

SETS = (  # (category, set id, company, sector)
    ("Company_Documents", "Set_Northwind", "Northwind Freight", "freight"),
    ("Company_Documents", "Set_Aldermoor", "Aldermoor Foods", "food"),
    ("Industry_Reports", "Set_Kestrel", "Kestrel Energy", "energy"),
    ("Legal", "Set_Brightwater", "Brightwater Water", "water"),
)
QUARTERS = ("Q1", "Q2", "Q3", "Q4")  # Q4: in no question (the others' filler)
SENTENCES = (
    "The board met four times during the period and approved the annual budget.",
    "Staff turnover remained within the range the company set at the start of the year.",
    "The company continued to invest in training for its regional teams.",
    "Customer complaints were reviewed monthly by the operations committee.",
    "No material litigation was opened or closed during the quarter.",
    "The audit committee reviewed the internal controls and reported no exceptions.",
    "Work continued on the replacement of the older office buildings.",
    "The company renewed its insurance cover on terms similar to the previous year.",
    "Energy use per employee fell slightly compared with the same period last year.",
    "The supplier review found no supplier that breached the code of conduct.",
    "Management expects trading conditions to remain broadly similar next quarter.",
    "The annual general meeting approved every resolution put to it.",
)
ZIP_TIME = (2025, 8, 5, 0, 0, 0)  # fixed: the same bytes on any machine
SEED = 20250805


def revenue(set_index: int, quarter: int) -> int:
    """Revenue in millions: distinct, so each comparison has one answer."""
    return 100 + 37 * set_index + (quarter * 13 + set_index * 5) % 29 + 9 * quarter


def report(set_index: int, quarter: int) -> str:
    _, _, company, sector = SETS[set_index]
    rng = random.Random(f"{SEED}:{set_index}:{quarter}")
    filler = [rng.choice(SENTENCES) for _ in range(rng.randint(0, 14))]
    half = len(filler) // 2
    return "\n\n".join([
        f"# {company}: {QUARTERS[quarter]} 2024 report",
        " ".join(filler[:half]),
        f"{company}, a {sector} company, reported revenue of {revenue(set_index, quarter)} "
        f"million dollars for {QUARTERS[quarter]} 2024.",
        " ".join(filler[half:]),
    ])


def filename(set_index: int, quarter: int) -> str:
    company = SETS[set_index][2].split()[0]
    return f"{company}_{QUARTERS[quarter]}_2024.txt"


def questions() -> list[dict]:
    """The CSV's rows, in its column order (input_tokens left 0: no cl100k here)."""
    rows = []
    for set_index, (category, set_id, company, _) in enumerate(SETS):
        plans = [(0, 1)] if set_index >= 2 else [(0, 1), (1, 2)]
        for first, second in plans:
            a, b = revenue(set_index, first), revenue(set_index, second)
            higher = QUARTERS[second] if b > a else QUARTERS[first]
            rows.append({
                "document_category": category, "document_set_id": set_id,
                "question_id": len(rows) + 1,
                "question": (f"By how many million dollars did {company}'s revenue differ "
                             f"between {QUARTERS[first]} and {QUARTERS[second]} 2024, and "
                             "which quarter was higher?"),
                "answer": f"{abs(b - a)} million dollars; {higher} was higher",
                "data_source_filenames": ";".join(filename(set_index, q)
                                                  for q in (first, second)),
                "data_source_urls": "",
                "input_tokens": 0,
            })
    return rows


def csv_text() -> str:
    out = io.StringIO(newline="")
    writer = csv.DictWriter(out, fieldnames=dataset.COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(questions())
    return out.getvalue()


def zip_bytes() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for set_index, (category, set_id, _, _) in enumerate(SETS):
            for quarter in range(len(QUARTERS)):
                info = zipfile.ZipInfo(
                    f"{dataset.ZIP_ROOT}/{category}/{set_id}/{filename(set_index, quarter)}",
                    ZIP_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, report(set_index, quarter))
    return out.getvalue()


def write(folder: Path) -> Path:
    """The two files in the card's layout under ``folder`` (what ``--aa-lcr-dir`` reads)."""
    (folder / "extracted_text").mkdir(parents=True, exist_ok=True)
    (folder / dataset.CSV_NAME).write_text(csv_text(), encoding="utf-8")
    (folder / "extracted_text" / dataset.ZIP_NAME).write_bytes(zip_bytes())
    return folder


def oracle(prompt_text: str) -> str | None:
    """The right answer to a miniature prompt (the tests' oracle endpoint), else None."""
    for row in questions():
        if f"START QUESTION\n\n{row['question']}\n\nEND QUESTION" in prompt_text:
            return row["answer"]
    return None

