/** One CSV field: its text and whether it was quoted. */
export interface Cell {
  text: string;
  quoted: boolean;
}

/** One CSV record, the 1-based line where it starts, and its text's start and end offsets (line end left out). */
export interface CsvRecord {
  line: number;
  cells: Cell[];
  start: number;
  end: number;
}

/** A quoting problem at a line and 1-based field number. */
export interface QuoteProblem {
  line: number;
  field: number;
  text: string;
}

/**
 * Split RFC 4180 CSV text into records, one at a time: comma separators, CRLF or LF line ends, fields in double
 * quotes may hold commas, line breaks and doubled quotes (""). Quoting mistakes are added to `problems` as each
 * record is read, and read leniently. Blank lines give no record.
 */
export function* csvRecords(text: string, problems: QuoteProblem[]): Generator<CsvRecord> {
  let line = 1;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const rec: CsvRecord = { line, cells: [], start: i, end: i };
    while (true) {
      const cell: Cell = { text: "", quoted: false };
      if (text[i] === '"') {
        cell.quoted = true;
        const openLine = line;
        i++;
        let closed = false;
        while (i < n) {
          const q = text.indexOf('"', i);
          const end = q < 0 ? n : q;
          const chunk = text.slice(i, end);
          cell.text += chunk;
          for (let k = chunk.indexOf("\n"); k >= 0; k = chunk.indexOf("\n", k + 1)) line++;
          i = end;
          if (q < 0) break;
          if (text[q + 1] === '"') {
            cell.text += '"';
            i = q + 2;
            continue;
          }
          i = q + 1;
          closed = true;
          break;
        }
        if (!closed) {
          problems.push({
            line: openLine,
            field: rec.cells.length + 1,
            text: "a quoted value that starts here is never closed: add the closing double quote (the rest of the file was read into this value)",
          });
        } else if (i < n && text[i] !== "," && text[i] !== "\n" && text[i] !== "\r") {
          problems.push({
            line,
            field: rec.cells.length + 1,
            text: 'text after the closing quote of a value; inside a quoted value write a double quote as ""',
          });
          while (i < n && text[i] !== "," && text[i] !== "\n" && text[i] !== "\r") cell.text += text[i++];
        }
      } else {
        const start = i;
        while (i < n && text[i] !== "," && text[i] !== "\n" && text[i] !== "\r") i++;
        cell.text = text.slice(start, i);
        if (cell.text.includes('"'))
          problems.push({
            line,
            field: rec.cells.length + 1,
            text: 'a double quote inside an unquoted value: wrap the whole value in double quotes and write the inner quote as ""',
          });
      }
      rec.cells.push(cell);
      if (i < n && text[i] === ",") {
        i++;
        continue;
      }
      break;
    }
    rec.end = i;
    if (text[i] === "\r") i++;
    if (text[i] === "\n") {
      i++;
      line++;
    }
    const blank = rec.cells.length === 1 && !rec.cells[0].quoted && rec.cells[0].text.trim() === "";
    if (!blank) yield rec;
  }
}
