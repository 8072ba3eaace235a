using System;
using System.Collections.Generic;
using StackExchange.Redis;

namespace KeyValueStore.Redis;

/// <summary>Checks <see cref="RedisKVStoreOptions"/> before anything connects, listing every problem at once.</summary>
internal static class RedisKVStoreOptionsValidator
{
    /// <summary>Throws when the options are invalid; returns the parsed configuration when <paramref name="needsConfiguration"/>.</summary>
    /// <exception cref="InvalidStoreOptionsException">Every problem found, each with what to change.</exception>
    public static ConfigurationOptions? Validate(RedisKVStoreOptions options, bool needsConfiguration)
    {
        var problems = new List<string>();
        ConfigurationOptions? configuration = null;
        if (needsConfiguration)
        {
            if (string.IsNullOrWhiteSpace(options.Configuration))
            {
                problems.Add($"{nameof(RedisKVStoreOptions.Configuration)} is empty: set it to the server's StackExchange.Redis configuration string, e.g. \"localhost:6379,abortConnect=false\", or pass a connection of your own.");
            }
            else
            {
                try
                {
                    configuration = ConfigurationOptions.Parse(options.Configuration);
                }
                catch (ArgumentException e)
                {
                    problems.Add($"{nameof(RedisKVStoreOptions.Configuration)} \"{options.Configuration}\" is not a StackExchange.Redis configuration string ({e.Message}).");
                }
            }
        }

        if (options.KeyPrefix is null)
        {
            problems.Add($"{nameof(RedisKVStoreOptions.KeyPrefix)} is null: use an empty string for no prefix.");
        }

        if (options.Database < -1)
        {
            problems.Add($"{nameof(RedisKVStoreOptions.Database)} is {options.Database}: use -1 for the connection's default database, or a database number from 0.");
        }

        if (options.MaxValueBytes <= 0)
        {
            problems.Add($"{nameof(RedisKVStoreOptions.MaxValueBytes)} is {options.MaxValueBytes}: it must be positive ({RedisKVStoreOptions.DefaultMaxValueBytes} by default).");
        }

        if (options.ReadRetries < 0)
        {
            problems.Add($"{nameof(RedisKVStoreOptions.ReadRetries)} is {options.ReadRetries}: use 0 for no retry, or a positive count.");
        }

        if (options.MaxUpdateAttempts < 1)
        {
            problems.Add($"{nameof(RedisKVStoreOptions.MaxUpdateAttempts)} is {options.MaxUpdateAttempts}: an update needs at least 1 attempt.");
        }

        if (problems.Count > 0)
        {
            throw new InvalidStoreOptionsException(problems);
        }

        return configuration;
    }
}
