using System.IO;
using System.Linq;

namespace KeyValueStore.Tests.Architecture;

/// <summary>
/// Keeps durability behind one abstraction (docs/architecture.md): the engine calls its <c>IWriteJournal</c> at fixed
/// points and never asks which mode it runs in. Only <c>StoreOpener</c>, which picks each mode's journal, names them.
/// </summary>
public partial class LayeringTests
{
    private static readonly string[] s_modeSpecificTypes =
        ["DurabilityMode", "NoJournal", "CheckpointJournal", "WriteAheadJournal", "Checkpointer", "WriteAheadLog", "ApplyTurns"];

    [Fact]
    public void TheEngine_NeverAsksWhichDurabilityModeItRunsIn()
    {
        var violations = (
            from file in Directory.EnumerateFiles(Path.Combine(SourceRoot, "Engine"), "*.cs")
            where Path.GetFileName(file) != "StoreOpener.cs"
            let code = WithoutComments(File.ReadAllText(file))
            from used in Identifiers().Matches(code).Select(match => match.Value).Distinct()
            where s_modeSpecificTypes.Contains(used)
            select $"{Path.GetFileName(file)} uses {used}").ToList();

        Assert.True(violations.Count == 0, "the engine branches on its durability mode:\n" + string.Join("\n", violations));
    }
}
