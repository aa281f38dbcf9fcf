package io.tarn.client.cli.fs;

import io.tarn.client.TarnClient;
import io.tarn.client.cli.Formats;
import io.tarn.common.fs.FileStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.util.List;

/** {@code -stat [FORMAT] PATH...}: prints file status fields, with hdfs dfs -stat's format letters. */
@Command(name = "-stat", aliases = "stat",
        description = {"Print status of files and directories in FORMAT (default %y, as hdfs dfs -stat). Conversions:",
                "  %b size in bytes          %F type (regular file, directory)",
                "  %n name                   %o block size",
                "  %r replication (always 1) %y modification time, UTC yyyy-MM-dd HH:mm:ss",
                "  %Y modification time, ms since the epoch",
                "  %c creation time, UTC     %C creation time, ms since the epoch (Tarn additions)",
                "  %i file id                %s storage class (0 = DRAM, 1 = flash) (Tarn additions)",
                "  %% a percent sign; \\n and \\t in FORMAT print a newline and a tab."})
final class Stat extends FsSubcommand {
    @Parameters(paramLabel = "[FORMAT] PATH...", arity = "1..*",
            description = "An optional format (recognised by containing %), then paths.")
    private List<String> arguments;

    @Override
    protected boolean execute(TarnClient client) throws IOException {
        boolean hasFormat = arguments.size() > 1 && arguments.get(0).contains("%");
        String format = hasFormat ? arguments.get(0) : "%y";
        for (String arg : hasFormat ? arguments.subList(1, arguments.size()) : arguments) {
            String path = absolute(arg);
            try {
                out().println(format(format, path, client.getStatus(path)));
            } catch (IOException e) {
                error(arg, e);
            }
        }
        return true;
    }

    static String format(String format, String path, FileStatus s) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < format.length(); i++) {
            char c = format.charAt(i);
            if (c == '\\' && i + 1 < format.length() && (format.charAt(i + 1) == 'n' || format.charAt(i + 1) == 't')) {
                sb.append(format.charAt(++i) == 'n' ? '\n' : '\t');
            } else if (c != '%' || i + 1 == format.length()) {
                sb.append(c);
            } else {
                sb.append(field(format.charAt(++i), path, s));
            }
        }
        return sb.toString();
    }

    private static String field(char letter, String path, FileStatus s) {
        switch (letter) {
            case 'b': return Long.toString(s.size());
            case 'F': return s.isDirectory() ? "directory" : "regular file";
            case 'n': return s.name().isEmpty() ? lastName(path) : s.name();
            case 'o': return Integer.toString(s.blockSize());
            case 'r': return s.isDirectory() ? "0" : "1";
            case 'y': return Formats.secondsUtc(s.modificationTime());
            case 'Y': return Long.toString(s.modificationTime());
            case 'c': return Formats.secondsUtc(s.creationTime());
            case 'C': return Long.toString(s.creationTime());
            case 'i': return Long.toString(s.fileId());
            case 's': return Integer.toString(s.storageClass());
            case '%': return "%";
            default: return "%" + letter;
        }
    }
}
